"""Feeds recorded frames to Houmao's shared TUI tracker and times each one.

Run by `npm run bench:frame` when PANEWARD_HOUMAO_DIR names a Houmao checkout; never imported by
paneward. Reads one JSON object on the first line of stdin: {"recordings": [{"tool", "version",
"lines": [[t, text] | [t, null] (a submitted prompt)]}]}. Then, for each line "pass" on stdin,
feeds every recording through a fresh TuiTrackerSession on virtual time and prints one JSON line
{"ns": [[per-frame nanoseconds of each recording...]...]}. A frame is: move the scheduler to the frame's time (firing
due timers), hand the tracker the screen, read its state.
"""

from __future__ import annotations

import json
import os
import sys
import time
import types


def _alias_rx3() -> None:
    """Houmao imports reactivex 4; Debian ships RxPY 3 as `rx`, the same classes the tracker uses."""

    try:
        import reactivex  # noqa: F401

        return
    except ImportError:
        pass
    import rx
    import rx.core.typing as typing
    import rx.disposable
    import rx.scheduler
    import rx.subject
    import rx.testing

    pkg = types.ModuleType("reactivex")
    pkg.timer = rx.timer  # type: ignore[attr-defined]
    abc = types.ModuleType("reactivex.abc")
    abc.SchedulerBase = typing.Scheduler  # type: ignore[attr-defined]
    abc.DisposableBase = typing.Disposable  # type: ignore[attr-defined]
    pkg.abc = abc  # type: ignore[attr-defined]
    for name, mod in {
        "reactivex": pkg,
        "reactivex.abc": abc,
        "reactivex.disposable": rx.disposable,
        "reactivex.scheduler": rx.scheduler,
        "reactivex.subject": rx.subject,
        "reactivex.testing": rx.testing,
    }.items():
        sys.modules[name] = mod


APP = {"claude_code": "claude_code", "codex": "codex_tui"}


def main() -> None:
    sys.path.insert(0, os.path.join(os.environ["PANEWARD_HOUMAO_DIR"], "src"))
    _alias_rx3()
    from houmao.shared_tui_tracking.models import TrackerConfig
    from houmao.shared_tui_tracking.session import TuiTrackerSession
    from reactivex.testing import TestScheduler

    spec = json.loads(sys.stdin.readline())
    recordings = [r for r in spec["recordings"] if r["tool"] in APP]
    print(json.dumps({"ready": True, "recordings": len(recordings)}), flush=True)
    clock = time.perf_counter_ns
    for command in sys.stdin:
        if command.strip() != "pass":
            break
        out: list[list[int]] = []
        for rec in recordings:
            mine: list[int] = []
            out.append(mine)
            scheduler = TestScheduler()
            session = TuiTrackerSession(
                app_id=APP[rec["tool"]],
                observed_version=rec["version"],
                config=TrackerConfig(settle_seconds=1.0, stability_threshold_seconds=0.0),
                scheduler=scheduler,
            )
            for t, text in rec["lines"]:
                if text is None:
                    scheduler.advance_to(t)
                    session.on_input_submitted()
                    continue
                start = clock()
                scheduler.advance_to(t)
                session.on_snapshot(text)
                session.current_state()
                session.drain_events()
                mine.append(clock() - start)
            session.close()
        print(json.dumps({"ns": out}), flush=True)


main()
