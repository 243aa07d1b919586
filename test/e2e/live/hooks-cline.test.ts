/**
 * Live: Cline's hooks as a witness (docs/hooks.md). `paneward hooks install cline` writes its
 * scripts into a scratch HOME's `~/.cline/hooks`, the real CLI runs offline in a real tmux pane
 * against the fake model server, and `paneward serve` (with a token) takes what they post: a
 * finished reply is a success and an API error a known failure, with the hooks' events taken.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { uniqueSocketName } from '../harness/session.js';
import { hookScratch, startHookedServe, type HookedServe } from './hooked-serve.js';

const SCRATCH = resolve('.tmp/e2e-live/hooks-cline', String(process.pid));
const missing = !existsSync(clineAgent.bin);

describe.skipIf(missing)('live Cline: hooks as a witness', () => {
  const home = join(SCRATCH, 'home');
  let options: ChatLaunchOptions;
  let model: FakeModelServer;
  let h: HookedServe;

  beforeAll(async () => {
    const { tokenFile } = hookScratch(SCRATCH);
    model = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    options = {
      scratch: SCRATCH,
      workDir: join(SCRATCH, 'work'),
      serverUrl: model.url,
      retries: 'default',
    };
    const launch = clineAgent.prepare(options);
    await clineAgent.setup!(options);
    h = await startHookedServe({
      scratch: SCRATCH,
      tokenFile,
      socketName: uniqueSocketName('hooks-cline'),
      tool: 'cline',
      id: 'cline',
      launch,
      installEnv: { HOME: home },
      idle: clineAgent.idle,
      readyTimeoutMs: clineAgent.startupTimeoutMs,
    });
    expect(readdirSync(join(home, '.cline', 'hooks')).sort()).toEqual([
      'TaskCancel.sh',
      'TaskComplete.sh',
      'TaskError.sh',
      'TaskStart.sh',
    ]);
  }, 180_000);

  afterAll(async () => {
    await h?.close();
    if (options) await clineAgent.stopDaemons!(options);
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  it('a finished reply is a success, with the hooks’ TaskStart and TaskComplete taken', async () => {
    model.enqueue({ text: 'A reply from the fake model for the hook.', chunkDelayMs: 40 });
    const before = h.hookPosts();
    const { turnId } = await h.send('prompt for the cline hook');
    const r = await h.wait(turnId);
    expect(r.lastTurn.result).toBe('success');
    await h.until(
      'both hook posts taken',
      async () => h.hookPosts(),
      (n) => n >= before + 2,
      10_000,
    );
    const ended = await h.endedOf(turnId);
    expect(ended).toMatchObject({ outcome: 'success', witness: 'both' });
  }, 120_000);

  it('an API error is a known failure, with the hook’s TaskError taken', async () => {
    await h.until('ready', h.state, h.ready);
    for (let i = 0; i < 3; i += 1) model.enqueue({ error: { status: 400 } });
    const before = h.hookPosts();
    const { turnId } = await h.send('this one fails');
    const r = await h.wait(turnId);
    expect(r.lastTurn.result).toBe('known_failure');
    await h.until(
      'both hook posts taken',
      async () => h.hookPosts(),
      (n) => n >= before + 2,
      10_000,
    );
    const ended = await h.endedOf(turnId);
    expect(ended).toMatchObject({ outcome: 'known_failure' });
    console.log(
      `cline hooks: failure witness ${JSON.stringify(ended && 'witness' in ended ? ended.witness : null)}, hook ${JSON.stringify(ended && 'hook' in ended ? ended.hook : null)}`,
    );
  }, 120_000);
});
