/**
 * A supervisor process for the crash test: it supervises stand-in agent panes on a data
 * directory (attaching them on the first run, re-adopting them afterwards), keeps submitting
 * prompts and resuming sessions its watchdog blocked, and prints one line per record as soon
 * as the journal acknowledges it: `ACK <seq>`. With `--observe MS` it only prints each
 * terminal's public state once it is quiet, at least MS milliseconds in (`STATE <json>`), and
 * exits.
 * Usage: crash-child.ts DATA_DIR SOCKET TARGET... [--observe MS] [--fresh]
 */
import { createSupervisor } from '../../../src/index.js';
import { standInProfile } from './stand-in-profile.js';

const args = process.argv.slice(2);
const observeAt = args.indexOf('--observe');
const observeMs = observeAt >= 0 ? Number(args[observeAt + 1]) : null;
const fresh = args.includes('--fresh');
const [dataDir, socketName, ...rest] = args.filter(
  (a, i) => !a.startsWith('--') && (observeAt < 0 || i !== observeAt + 1),
);
const targets = rest;

const sup = createSupervisor({
  socketName: socketName!,
  dataDir: fresh ? null : dataDir!,
  config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.2 },
  profiles: { stand_in: standInProfile },
});
const out = (line: string) => process.stdout.write(`${line}\n`);

if (sup.ids().length === 0) {
  for (const [i, target] of targets.entries()) {
    await sup.attach({
      target,
      tool: 'stand_in',
      id: `p${i}`,
      sessionWallClockSeconds: i === 0 ? 1.5 : 0,
    });
  }
}

if (observeMs !== null) {
  // Each terminal's state once it has been looked at (diagnostics no longer unknown) and has
  // not changed for QUIET_MS, and at least observeMs after the start: how long the first look
  // takes depends on the machine's load, what a terminal settles on does not. Printed after
  // 30 s whatever it is, so a terminal stuck in a restored turn still shows.
  const QUIET_MS = 1000;
  const started = Date.now();
  const changed = new Map<string, number>();
  for (const id of sup.ids()) sup.state$(id).subscribe(() => changed.set(id, Date.now()));
  const timer = setInterval(() => {
    const now = Date.now();
    const settled = sup
      .ids()
      .every(
        (id) =>
          sup.get(id).diagnostics.availability !== 'unknown' &&
          now - (changed.get(id) ?? now) >= QUIET_MS,
      );
    if (!(now - started >= observeMs && settled) && now - started < 30_000) return;
    clearInterval(timer);
    for (const id of sup.ids()) out(`STATE ${JSON.stringify(sup.get(id))}`);
    void sup.stop().then(() => process.exit(0));
  }, 100);
} else {
  sup.records$(sup.journal.durableSeq).subscribe((r) => out(`ACK ${r.seq}`));
  setInterval(() => {
    for (const id of sup.ids()) {
      const s = sup.get(id);
      if (s.session.status === 'blocked') void sup.resume(id).catch(() => {});
      else if (
        s.readiness.status === 'ready' &&
        s.turn.phase !== 'active' &&
        s.completion?.status !== 'waiting'
      ) {
        void sup.submit(id, `prompt at ${Date.now()}`).catch(() => {});
      }
    }
  }, 120);
}
