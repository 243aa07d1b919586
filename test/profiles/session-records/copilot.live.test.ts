/**
 * Copilot CLI's session-record reader against the real CLI (offline, loopback model server):
 * two panes of the CLI in one folder with one home each find their own record, and a CLI
 * started again in the folder finds its new record, never the one its predecessor left; a
 * session begun anew in the same process (`/clear`) is followed to its new record.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextFromProc } from './proc-context.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copilotSessionRecord } from '../../../src/profiles/copilot/session-record.js';
import type { SessionContext } from '../../../src/profiles/session-record.js';
import { ClaimRegistry, SessionObserver } from '../../../src/sessions/observer.js';
import { copilotAgent } from '../../../src/tooling/agents/copilot.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import {
  startAgentSession,
  uniqueSocketName,
  type AgentSession,
} from '../../e2e/harness/session.js';

const missing = !existsSync(copilotAgent.bin);
if (missing)
  console.warn('live copilot session-record test skipped: scripts/install-agent.sh copilot');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(missing)('live copilot session record', () => {
  let scratch: string;
  let server: FakeModelServer;
  const sessions: AgentSession[] = [];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'pw-copilot-record-'));
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
  });

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Starts the CLI in a pane (every pane the same home and folder); resolves when it is ready. */
  async function start(): Promise<{ session: AgentSession; pid: number }> {
    const launch = copilotAgent.prepare({
      scratch,
      workDir: join(scratch, 'work'),
      serverUrl: server.url,
      retries: 'capped',
    });
    const session = await startAgentSession({
      socketName: uniqueSocketName('pw-copilot-record'),
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
    });
    sessions.push(session);
    await session.waitForText(copilotAgent.idle, copilotAgent.startupTimeoutMs);
    const [pid] = await session.waitForProcess(copilotAgent.processNames, 10_000);
    return { session, pid: pid! };
  }

  async function ask(session: AgentSession, prompt: string): Promise<void> {
    await session.sendText(prompt);
    await sleep(300);
    await session.sendKeys('Enter');
    await session.waitForText(/● OK\./, 30_000);
  }

  async function locateSoon(context: () => Promise<SessionContext>): Promise<string | null> {
    for (let i = 0; i < 40; i += 1) {
      const file = await copilotSessionRecord.locate(await context());
      if (file) return file;
      await sleep(250);
    }
    return null;
  }

  const prompts = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: { content?: string } })
      .filter((e) => e.type === 'user.message')
      .map((e) => e.data.content);

  it('two panes in one folder each find their own record; a CLI started again finds its new one', async () => {
    const a = await start();
    const b = await start();
    // Before the first prompt the session has no events yet.
    expect(await copilotSessionRecord.locate(await contextFromProc(a.pid))).toBe(null);
    await ask(a.session, 'first pane');
    await ask(b.session, 'second pane');

    const fileA = await locateSoon(() => contextFromProc(a.pid));
    const fileB = await locateSoon(() => contextFromProc(b.pid));
    expect(fileA).not.toBe(null);
    expect(fileB).not.toBe(null);
    expect(fileA).not.toBe(fileB);
    expect(prompts(fileA!)).toEqual(['first pane']);
    expect(prompts(fileB!)).toEqual(['second pane']);
    // Each reads to its own turn: started, then a success.
    const events = readFileSync(fileA!, 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        const r = copilotSessionRecord.read(line, { file: fileA!, offset: 0 });
        if ('unknown' in r) throw new Error(r.unknown);
        return r.events.map((e) => (e.type === 'turn_ended' ? e.ending.reason : e.type));
      });
    expect(events).toEqual(['turn_started', 'success']);

    // The CLI in the first pane quits and starts again in the same folder.
    await a.session.close();
    const a2 = await start();
    await ask(a2.session, 'first pane again');
    const fileA2 = await locateSoon(() => contextFromProc(a2.pid, new Set([fileB!])));
    expect(fileA2).not.toBe(null);
    expect(fileA2).not.toBe(fileA);
    expect(fileA2).not.toBe(fileB);
    expect(prompts(fileA2!)).toEqual(['first pane again']);

    // `/clear` in the second pane: the same process begins a new session, whose record appears
    // only with its first prompt. The observer, told of that turn as it starts, follows it.
    const observer = new SessionObserver({
      owner: 'b',
      reader: copilotSessionRecord,
      processNames: copilotAgent.processNames,
      claims: new ClaimRegistry(),
      panePid: () => b.session.panePid(),
      report: () => undefined,
    });
    try {
      await observer.locate();
      expect(observer.status).toMatchObject({ state: 'following', file: fileB });
      await b.session.sendText('/clear');
      await sleep(300);
      await b.session.sendKeys('Enter');
      await sleep(1500);
      await b.session.sendText('after clear');
      await sleep(300);
      await b.session.sendKeys('Enter');
      void observer.locate(); // the turn starts
      const deadline = Date.now() + 15_000;
      while (
        Date.now() < deadline &&
        !(observer.status.state === 'following' && observer.status.file !== fileB)
      ) {
        await sleep(100);
      }
      const status = observer.status;
      expect(status.state).toBe('following');
      const fileB2 = status.state === 'following' ? status.file : '';
      expect(fileB2).not.toBe(fileB);
      expect(status).toMatchObject({ pid: b.pid });
      await b.session.waitForText(/● OK\./, 30_000);
      expect(prompts(fileB2)).toEqual(['after clear']);
    } finally {
      observer.stop();
    }
  }, 240_000);
});
