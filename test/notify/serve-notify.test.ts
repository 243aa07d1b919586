import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServer } from '../../src/cli/serve.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import { startReceiver } from './internal/receiver.js';

const PROFILES = fileURLToPath(new URL('../fleet/internal/profiles.ts', import.meta.url));

describe('paneward serve --notify, end to end', () => {
  let agent: AgentSession;
  let dir: string;
  let running: RunningServer | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-serve-notify-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '600' },
      command: [process.execPath, STAND_IN_AGENT],
      remainOnExit: true,
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await running?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells a webhook of a question and of the turn that ended, with a receiver that hangs beside it', async () => {
    const rx = await startReceiver();
    // A second receiver that never answers: its queue fills; the first and the API go on.
    const stuck = await startReceiver(() => {});
    running = await startServe({
      port: '0',
      dataDir: join(dir, 'data'),
      socketName: agent.socketName,
      discover: false,
      logLevel: 'silent',
      pollInterval: '0.1',
      settle: '0.3',
      profileModule: PROFILES,
      notify: [rx.url, stuck.url],
      notifyTimeout: '60',
      notifyQueue: '1',
    });
    const sup = running.supervisor!;
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'n1' });
    const until = async (check: () => boolean, ms = 20_000) => {
      const end = Date.now() + ms;
      while (!check()) {
        if (Date.now() > end) throw new Error('timed out waiting');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(() => sup.get(id).readiness.status === 'ready');
    // The stand-in agent asks the operator before it works on an `ask:` prompt.
    const turnId = await sup.submit(id, 'ask: may I run the tests', {});
    const [question] = await rx.waitFor(1, 20_000);
    expect(question!.body).toMatchObject({
      version: 1,
      kind: 'question',
      terminalId: 'n1',
      tool: 'stand_in',
      turnId,
      prompt: 'tool_permission',
      state: { readiness: 'blocked' },
    });
    await agent.sendText('y');
    await agent.sendKeys('Enter');
    await until(() => rx.received.some((r) => (r.body as NotifyEvent).kind === 'turn_ended'));
    const ended = rx.received.find((r) => (r.body as NotifyEvent).kind === 'turn_ended')!;
    const event = NotifyEvent.parse(ended.body);
    expect(event).toMatchObject({
      kind: 'turn_ended',
      terminalId: 'n1',
      turnId,
      outcome: 'success',
      coalesced: 1,
      state: { lastTurn: { result: 'success', turnId } },
    });
    expect(event.host).toBeUndefined();

    // The API answers at once although one receiver holds every delivery it is sent.
    const t0 = Date.now();
    const res = await fetch(`${running.url}/v1/terminals/n1`);
    expect(res.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2000);

    // The outcomes: in the journal (valid records, no prompt text) and in /metrics.
    await until(() =>
      (sup.history(id, 200) as JournalRecord[]).some(
        (r) => r.kind === 'notify.delivery' && r.event === 'turn_ended' && r.sink === 'webhook:1',
      ),
    );
    const deliveries = (sup.history(id, 200) as JournalRecord[]).filter(
      (r) => r.kind === 'notify.delivery',
    );
    expect(deliveries).toContainEqual(
      expect.objectContaining({
        sink: 'webhook:1',
        event: 'question',
        outcome: 'delivered',
        attempts: 1,
        turnId,
      }),
    );
    expect(deliveries).toContainEqual(
      expect.objectContaining({ sink: 'webhook:1', event: 'turn_ended', outcome: 'delivered' }),
    );
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^paneward_notify_delivered_total\{sink="webhook:1"\} [2-9]$/m);
    expect(metrics).toMatch(/^paneward_notify_delivered_total\{sink="webhook:2"\} 0$/m);
    expect(metrics).toMatch(/^paneward_notify_failed_total\{sink="webhook:1"\} 0$/m);
    expect(metrics).toMatch(/^paneward_records_total\{kind="notify.delivery"\} \d+$/m);

    // The CLI exits: the pane stays (remain-on-exit) with no agent in it.
    await agent.sendKeys('C-d');
    await until(() => rx.received.some((r) => (r.body as NotifyEvent).kind === 'exited'));
    expect(rx.received.find((r) => (r.body as NotifyEvent).kind === 'exited')!.body).toMatchObject({
      kind: 'exited',
      terminalId: 'n1',
      state: { availability: 'tui_down' },
    });
    // The receiver that hangs holds one, one waits: the third event was dropped, counted.
    const after = await (await fetch(`${running.url}/metrics`)).text();
    expect(after).toMatch(/^paneward_notify_dropped_total\{sink="webhook:2"\} [1-9]$/m);
    expect(after).toMatch(/^paneward_notify_dropped_total\{sink="webhook:1"\} 0$/m);

    // Stopping does not wait for the receiver that never answers.
    const s0 = Date.now();
    await running.stop();
    running = null;
    expect(Date.now() - s0).toBeLessThan(10_000);
    await rx.close();
    await stuck.close();
  }, 90_000);
});
