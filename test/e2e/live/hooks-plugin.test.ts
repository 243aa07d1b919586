/**
 * Live: the plugin as the witness of opencode and of Kilo, its fork (docs/hooks.md): neither has
 * a session record paneward reads, so the plugin is their only witness beside the screen.
 * `paneward hooks install <tool>` writes it into a scratch config, the real CLI runs offline in a
 * real tmux pane, and `paneward serve` (with a token) takes what it posts: a success, an
 * interruption and an API error are each decided with the plugin's word.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatAgent } from '../../../src/tooling/agents/chat-agent.js';
import { kiloAgent } from '../../../src/tooling/agents/kilo.js';
import { opencodeAgent } from '../../../src/tooling/agents/opencode.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { uniqueSocketName } from '../harness/session.js';
import { hookScratch, startHookedServe, type HookedServe } from './hooked-serve.js';

for (const cli of [opencodeAgent, kiloAgent]) pluginSuite(cli);

function pluginSuite(cli: ChatAgent): void {
  const tool = cli.tool;
  const SCRATCH = resolve(`.tmp/e2e-live/hooks-${tool}`, String(process.pid));
  const missing = !existsSync(cli.bin);

  describe.skipIf(missing)(`live ${tool}: the plugin as its witness`, () => {
    let model: FakeModelServer;
    let h: HookedServe;

    beforeAll(async () => {
      const { tokenFile } = hookScratch(SCRATCH);
      model = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
      const options = {
        scratch: SCRATCH,
        workDir: join(SCRATCH, 'work'),
        serverUrl: model.url,
        retries: 'default' as const,
      };
      const launch = cli.prepare(options);
      await cli.setup?.(options);
      h = await startHookedServe({
        scratch: SCRATCH,
        tokenFile,
        socketName: uniqueSocketName(`hooks-${tool}`),
        tool,
        id: tool,
        launch,
        installEnv: { HOME: join(SCRATCH, 'home'), XDG_CONFIG_HOME: launch.env.XDG_CONFIG_HOME! },
        idle: cli.idle,
        readyTimeoutMs: cli.startupTimeoutMs,
      });
      expect(readdirSync(join(launch.env.XDG_CONFIG_HOME!, tool, 'plugin'))).toEqual([
        'paneward.js',
      ]);
    }, 180_000);

    afterAll(async () => {
      await h?.close();
      await model?.close();
      rmSync(SCRATCH, { recursive: true, force: true });
    }, 60_000);

    it('a success is decided with the plugin’s idle, sooner than the screen alone', async () => {
      model.enqueue({ text: 'A reply from the fake model for the plugin.', chunkDelayMs: 40 });
      const before = h.hookPosts();
      const { turnId } = await h.send('prompt for the plugin');
      const r = await h.wait(turnId);
      expect(r.lastTurn.result).toBe('success');
      const ended = await h.endedOf(turnId);
      expect(ended).toMatchObject({
        outcome: 'success',
        witness: 'both',
        hook: { event: 'session.idle' },
      });
      expect(h.hookPosts()).toBeGreaterThanOrEqual(before + 2);
      const req = model
        .log()
        .filter((e) => e.streaming)
        .at(-1)!;
      const at = (ended as { t: number }).t;
      const lagMs = at * 1000 - req.endedAt!;
      console.log(`${tool} plugin: success ${Math.round(lagMs)} ms after the stream ended`);
      // The screen alone waits out the CLI drawing 2-3 s after the stream ended, then the settle.
      expect(lagMs).toBeLessThan(1500);
    }, 120_000);

    it('an interruption is decided with the plugin’s MessageAbortedError', async () => {
      await h.until('ready', h.state, h.ready);
      const long = Array.from({ length: 80 }, (_, i) => `Sentence ${i + 1}.`).join(' ');
      model.enqueue({ text: long, chunkDelayMs: 150 });
      const { turnId } = await h.send('a long story please');
      await h.agent.waitForText(/Sentence 3/, 30_000);
      await h.call(`/v1/terminals/${tool}/interrupt`, { method: 'POST' });
      const r = await h.wait(turnId);
      expect(r.lastTurn.result).toBe('interrupted');
      await h.until('the plugin agreeing', h.state, (s) => s.lastTurn.witness === 'both', 4000);
    }, 120_000);

    it('an API error is decided with the plugin’s APIError', async () => {
      await h.until('ready', h.state, h.ready);
      for (let i = 0; i < 3; i += 1) model.enqueue({ error: { status: 400 } });
      const { turnId } = await h.send('this one fails');
      const r = await h.wait(turnId);
      expect(r.lastTurn.result).toBe('known_failure');
      const ended = await h.endedOf(turnId);
      expect(ended).toMatchObject({ outcome: 'known_failure' });
      console.log(`${tool} plugin: failure ${JSON.stringify(ended)}`);
    }, 120_000);
  });
}
