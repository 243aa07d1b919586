import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, isPanewardError, type Supervisor } from '../../src/index.js';
import type { ProfileFactory } from '../../src/profiles/types.js';
import type { ProfileResult } from '../../src/schemas/signals.js';
import { NO_SIGNALS } from '../../src/schemas/signals.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';

/** A profile for a plain shell running `cat`: idle and ready whenever the pane shows `READY`. */
const catProfile: ProfileFactory = () => ({
  id: 'cat_tool',
  verifiedVersions: 'test',
  processNames: ['cat'],
  interruptKeys: ['C-c'],
  submitKeys: ['Enter'],
  parse: (screen): ProfileResult => {
    const ready = /READY/.test(screen.text);
    return {
      surface: {
        availability: 'supported',
        businessState: ready ? 'idle' : 'unknown',
        inputMode: ready ? 'freeform' : 'unknown',
        uiContext: 'normal_prompt',
        projectionText: screen.text,
      },
      signals: { ...NO_SIGNALS, activeReasons: [], readyPosture: ready ? 'yes' : 'unknown' },
      evidence: { detector: 'cat_tool', rule: ready ? 'ready' : 'unknown' },
    };
  },
});

/**
 * `cat` as an agent whose turns end: once `READY` shows and the echo of the prompt is in, the
 * reply is there (a success candidate), so a turn ends and the next prompt may be typed.
 */
const echoProfile: ProfileFactory = () => ({
  ...catProfile(),
  parse: (screen) => {
    const r = catProfile().parse(screen);
    const lines = screen.text.trimEnd().split('\n');
    const echoed = lines.length >= 3 && lines.at(-1) === lines.at(-2);
    return { ...r, signals: { ...r.signals, successCandidate: echoed } };
  },
});

/** A broken profile: its signals fail validation, so every poll of its terminal throws. */
const brokenProfile: ProfileFactory = () => ({
  ...catProfile(),
  id: 'broken_tool',
  parse: (screen) => {
    const r = catProfile().parse(screen);
    return { ...r, signals: { ...r.signals, acceptingInput: 'maybe' as never } };
  },
});

const until = (sup: Supervisor, id: string, pred: (s: TerminalState) => boolean, ms = 10_000) =>
  firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

describe('supervisor with real tmux', () => {
  let good: AgentSession;
  let bad: AgentSession;
  let sup: Supervisor;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-sup-'));
    // `sh -c` prints READY then runs cat, which echoes every line it is given.
    const command = ['sh', '-c', 'echo READY; exec cat'];
    good = await startAgentSession({ cwd: dir, env: {}, command, sessionName: 'good' });
    bad = await startAgentSession({
      cwd: dir,
      env: {},
      command,
      sessionName: 'bad',
      socketName: good.socketName,
    });
    sup = createSupervisor({
      socketName: good.socketName,
      dataDir: join(dir, 'data'),
      // A long stability window keeps a submitted turn pending long enough to test refusal.
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 1.5 },
      restartBackoff: { initialSeconds: 0.05, maxSeconds: 0.2 },
      profiles: { cat_tool: echoProfile, broken_tool: brokenProfile },
    });
  });

  afterAll(async () => {
    await sup?.stop();
    await bad?.close();
    await good?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects bad attach requests naming the field', async () => {
    const err: unknown = await sup.attach({ target: 'not a target!' }).catch((e: unknown) => e);
    expect(isPanewardError(err) && err.code).toBe('invalid_input');
    expect(String((err as Error).message)).toMatch(/target/);
    await expect(sup.attach({ target: '%1', tool: 'no_such_cli' })).rejects.toThrow(
      /field `tool`: unknown tool "no_such_cli"/,
    );
    await expect(
      sup.attach({ target: '%1', sessionWallClockSeconds: -1 } as never),
    ).rejects.toThrow(/sessionWallClockSeconds/);
    expect(() => sup.get('nope')).toThrow(/no terminal with id nope/);
  });

  it('restarts a failing terminal with capped backoff while its sibling keeps working', async () => {
    const okId = await sup.attach({ target: good.target, tool: 'cat_tool', id: 'ok' });
    const badId = await sup.attach({ target: bad.target, tool: 'broken_tool', id: 'bad' });
    await expect(sup.attach({ target: good.target, id: 'ok' })).rejects.toThrow(/already attached/);

    await until(sup, okId, (s) => s.readiness.status === 'ready');
    // Let the broken terminal fail and be restarted several times.
    const deadline = Date.now() + 10_000;
    while (sup.restartLog().filter((r) => r.terminalId === badId).length < 4) {
      if (Date.now() > deadline) throw new Error('no restarts recorded');
      await new Promise((r) => setTimeout(r, 50));
    }
    const log = sup.restartLog().filter((r) => r.terminalId === badId);
    expect(log.map((r) => r.attempt).slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(log.map((r) => r.delaySeconds).slice(0, 4)).toEqual([0.05, 0.1, 0.2, 0.2]);
    expect(log[0]!.error).toMatch(/acceptingInput/);
    expect(sup.ids().sort()).toEqual(['bad', 'ok']);

    // The healthy sibling still follows its pane.
    await good.sendText('hello sibling');
    await good.sendKeys('Enter');
    const changed = await until(sup, okId, (s) => s.stability.stable === false, 5_000);
    expect(changed.terminalId).toBe('ok');
    sup.detach(badId);
    expect(sup.ids()).toEqual(['ok']);
  });

  it('types prompts literally, never as tmux key names', async () => {
    const s = await until(sup, 'ok', (st) => st.readiness.status === 'ready');
    expect(s.readiness.status).toBe('ready');
    await sup.submit('ok', 'Enter C-c Escape literally', { force: true });
    const screen = await good.waitForText(
      /Enter C-c Escape literally\n.*Enter C-c Escape literally/,
    );
    expect(screen).toMatch(/Enter C-c Escape literally/);
  });

  it('refuses a submit while its own turn is still pending, and when not ready', async () => {
    await until(sup, 'ok', (st) => st.completion?.status === 'completed', 10_000);
    const turnId = await sup.submit('ok', 'first prompt');
    await expect(sup.submit('ok', 'second prompt')).rejects.toMatchObject({
      code: 'not_ready',
      details: { pendingTurnId: turnId },
    });
    const done = await sup.waitForTurn('ok', turnId, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ turnId, result: 'completed' });
    const shell = await sup.attach({ target: bad.target, tool: 'unsupported', id: 'plain' });
    await until(sup, shell, (s) => s.readiness.status === 'failed');
    await expect(sup.submit(shell, 'hi')).rejects.toMatchObject({
      code: 'not_ready',
      details: { readiness: 'failed' },
    });
    await expect(sup.submit(shell, '')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('discovers panes by the process names of custom profiles', async () => {
    sup.detach('plain');
    const found = await sup.discover();
    // The `bad` pane runs cat too and is no longer attached: discovery attaches it.
    expect(found).toHaveLength(1);
    expect(sup.get(found[0]!).tool).toBe('cat_tool');
  });

  it('a turn whose terminal is detached ends with a stopped error, not a hang', async () => {
    await until(sup, 'ok', (s) => s.completion?.status === 'completed', 10_000);
    const turnId = await sup.submit('ok', 'about to be detached');
    const waiting = sup.waitForTurn('ok', turnId, { timeoutMs: 10_000 });
    sup.detach('ok');
    await expect(waiting).rejects.toMatchObject({ code: 'stopped' });
  });
});

describe('session watchdog through the supervisor', () => {
  let session: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-wd-'));
    session = await startAgentSession({
      cwd: dir,
      env: {},
      command: ['sh', '-c', 'echo READY; exec cat'],
      remainOnExit: true,
    });
  });

  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cancels a running turn once per window, journals why, blocks new turns until resumed', async () => {
    const sup = createSupervisor({
      socketName: session.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, stabilitySeconds: 5 },
      profiles: { cat_tool: catProfile },
    });
    try {
      const id = await sup.attach({
        target: session.target,
        tool: 'cat_tool',
        id: 'wd',
        sessionWallClockSeconds: 1.5,
      });
      await until(sup, id, (s) => s.readiness.status === 'ready' && s.watchdog.state === 'armed');
      expect(sup.get(id).watchdog.budgetSeconds).toBe(1.5);
      // A turn is running when the window ends (cat echoes the prompt; nothing ends the turn).
      const turnId = await sup.submit(id, 'a long task');
      const blocked = await until(sup, id, (s) => s.session.status === 'blocked', 5_000);
      expect(blocked.session.stopReasonCode).toBe('watchdog_wall_clock_exceeded');
      expect(blocked.watchdog.state).toBe('fired');
      const cancels = () => sup.journal.read(0, id).filter((r) => r.kind === 'watchdog.cancel');
      await sup.journal.flush();
      expect(cancels()).toEqual([
        expect.objectContaining({
          aggregateType: 'runtime_control',
          aggregateId: 'wd',
          eventKind: 'runtime.watchdog.cancel',
          reason: 'wall_clock_exceeded',
          elapsedSeconds: 2,
          configuredBudgetSeconds: 2,
        }),
      ]);
      // The cancel interrupted the running turn with its profile's key: C-c ends `cat`.
      await until(sup, id, (s) => s.diagnostics.process === 'tui_down', 5_000);
      // Blocked: a new turn is refused, naming why, until resume.
      await expect(sup.submit(id, 'another')).rejects.toMatchObject({
        code: 'not_ready',
        details: { stopReasonCode: 'watchdog_wall_clock_exceeded' },
      });
      expect(turnId).toMatch(/^turn-\d+$/);
      await sup.resume(id);
      expect(sup.get(id).session).toEqual({ status: 'running', stopReasonCode: null });
      expect(sup.get(id).watchdog.state).toBe('armed');
      await until(sup, id, (s) => s.session.status === 'blocked', 5_000);
      await sup.journal.flush();
      expect(cancels()).toHaveLength(2);
      expect(sup.journal.read(0, id).filter((r) => r.kind === 'watchdog.window')).toHaveLength(2);
    } finally {
      await sup.stop();
    }
  });

  it('never arms without a budget: an observing supervisor never types', async () => {
    const sup = createSupervisor({
      socketName: session.socketName,
      dataDir: join(dir, 'data-observe'),
      config: { pollIntervalSeconds: 0.1 },
      profiles: { cat_tool: catProfile },
    });
    try {
      const id = await sup.attach({ target: session.target, tool: 'cat_tool' });
      await until(sup, id, (s) => s.diagnostics.availability !== 'unknown');
      expect(sup.get(id).watchdog).toEqual({
        state: 'disabled',
        sessionStartedAt: null,
        budgetSeconds: 0,
      });
    } finally {
      await sup.stop();
    }
  });
});
