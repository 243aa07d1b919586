/**
 * Cline's session-record reader against the real CLI (offline, loopback model server): two
 * panes of the CLI in one folder with one home. The first runs its session itself and finds its
 * own record; the second's session is run by the hub daemon the first started (its record names
 * the daemon's pid), and it must never be taken for the first pane's, nor the first's for it.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextFromProc } from './proc-context.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clineSessionRecord } from '../../../src/profiles/cline/session-record.js';
import type { SessionContext } from '../../../src/profiles/session-record.js';
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
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

const missing = !existsSync(clineAgent.bin);
if (missing) console.warn('live cline session-record test skipped: scripts/install-agent.sh cline');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(missing)('live cline session record', () => {
  let scratch: string;
  let server: FakeModelServer;
  let options: ChatLaunchOptions;
  const sessions: AgentSession[] = [];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'pw-cline-record-'));
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    options = { scratch, workDir: join(scratch, 'work'), serverUrl: server.url, retries: 'capped' };
    clineAgent.prepare(options);
    await clineAgent.setup!(options);
  }, 90_000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    if (options) await clineAgent.stopDaemons?.(options);
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  async function start(): Promise<{ session: AgentSession; pid: number }> {
    const launch = clineAgent.prepare(options);
    const session = await startAgentSession({
      socketName: uniqueSocketName('pw-cline-record'),
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
    });
    sessions.push(session);
    await session.waitForText(clineAgent.idle, clineAgent.startupTimeoutMs);
    const [pid] = await session.waitForProcess(clineAgent.processNames, 10_000);
    return { session, pid: pid! };
  }

  async function ask(session: AgentSession, prompt: string): Promise<void> {
    await session.sendText(prompt);
    await sleep(300);
    await session.sendKeys('Enter');
    await session.waitForText(/\* OK\./, 30_000);
  }

  async function locateSoon(
    context: () => Promise<SessionContext>,
    tries = 40,
  ): Promise<string | null> {
    for (let i = 0; i < tries; i += 1) {
      const file = await clineSessionRecord.locate(await context());
      if (file) return file;
      await sleep(250);
    }
    return null;
  }

  const prompts = (file: string) =>
    (
      JSON.parse(readFileSync(file, 'utf8')) as {
        messages: Array<{ role: string; content: Array<{ text?: string }> }>;
      }
    ).messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content[0]?.text);

  it('each pane finds its own record or none, never the other pane’s', async () => {
    const a = await start();
    await ask(a.session, 'first pane');
    const fileA = await locateSoon(() => contextFromProc(a.pid));
    expect(fileA).not.toBe(null);
    expect(prompts(fileA!)).toEqual(['<user_input mode="act">first pane</user_input>']);
    const reading = clineSessionRecord.read(readFileSync(fileA!, 'utf8'), {
      file: fileA!,
      offset: 0,
    });
    expect(
      'events' in reading &&
        reading.events.map((e) => (e.type === 'turn_ended' ? e.ending.reason : e.type)),
    ).toEqual(['turn_started', 'success']);

    const b = await start();
    await ask(b.session, 'second pane');
    // Wait until the second prompt is on disk somewhere, then ask again for both panes.
    const sessionsDir = join(scratch, 'home', '.cline', 'data', 'sessions');
    for (let i = 0; i < 40; i += 1) {
      const all = readdirSync(sessionsDir).flatMap((id) => {
        try {
          return prompts(join(sessionsDir, id, `${id}.messages.json`));
        } catch {
          return [];
        }
      });
      if (all.some((p) => p?.includes('second pane'))) break;
      await sleep(250);
    }
    const fileB = await locateSoon(() => contextFromProc(b.pid, new Set([fileA!])), 8);
    if (fileB !== null) {
      expect(fileB).not.toBe(fileA);
      expect(prompts(fileB)).toEqual(['<user_input mode="act">second pane</user_input>']);
    }
    expect(await clineSessionRecord.locate(await contextFromProc(a.pid))).toBe(fileA);
    expect(prompts(fileA!)).toEqual(['<user_input mode="act">first pane</user_input>']);
  }, 240_000);
});
