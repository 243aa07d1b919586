/**
 * The MCP server through the SDK's own client, over an in-memory transport, against a
 * supervisor on a real tmux socket whose pane runs the real Claude Code CLI offline (the
 * loopback model server answers it): list, state, send and wait, and every refusal.
 */
import { dirname, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ApiClient } from '../../src/cli/client-api.js';
import { remoteBackend } from '../../src/mcp/backend.js';
import { serve, type RunningServer } from '../../src/serve.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../src/tooling/agents/claude_code.js';
import {
  call,
  claudeUnderSupervisor,
  client,
  connect,
  missing,
  model,
  socketName,
  STEP_MS,
  sup,
  textOf,
  untilReady,
  agent,
  SCRATCH,
} from './internal/sdk-fixture.js';

describe.skipIf(missing && !process.env.CI)('paneward MCP server with the SDK client', () => {
  let served: RunningServer | undefined;
  claudeUnderSupervisor();
  afterAll(async () => {
    await served?.stop();
  }, 30_000);

  it('offers its tools, each described for a model and with an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'answer_question',
      'interrupt',
      'list_terminals',
      'resume',
      'send_prompt',
      'spawn',
      'stop',
      'terminal_state',
      'wait_for_turn',
    ]);
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(80);
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
    const send = tools.find((t) => t.name === 'send_prompt')!;
    expect(send.inputSchema.required).toEqual(['terminal', 'prompt']);
    expect(send.description).toMatch(/timeout/);
  });

  it(
    'lists the terminal and reads its state and screen once Claude Code is ready',
    async () => {
      await untilReady();
      const listed = await call('list_terminals');
      expect(listed.isError).toBeFalsy();
      const [t] = (listed.structuredContent as { terminals: Array<Record<string, unknown>> })
        .terminals;
      expect(t).toMatchObject({
        terminalId: 'claude',
        target: agent.target,
        tool: 'claude_code',
        readiness: 'ready',
        operations: { sendPrompt: { allowed: 'yes' }, interrupt: { allowed: 'no' } },
      });
      expect(textOf(listed)).toContain('claude');

      // By the pane it was attached as, too.
      const state = await call('terminal_state', { terminal: agent.target });
      expect(state.isError).toBeFalsy();
      const sc = state.structuredContent as { terminal: { terminalId: string }; screen: string };
      expect(sc.terminal.terminalId).toBe('claude');
      expect(sc.screen).toContain('❯');
      expect(textOf(state)).toContain('--- screen ---');

      // By the pane's other name, as tmux gives it.
      const { stdout: paneId } = await execa('tmux', [
        ...['-L', socketName, 'display-message', '-p', '-t', agent.target, '#{pane_id}'],
      ]);
      const byId = await call('terminal_state', { terminal: paneId.trim(), screen: false });
      expect(byId.structuredContent).toMatchObject({
        terminal: { terminalId: 'claude' },
        screen: null,
      });
    },
    STEP_MS,
  );

  it('refuses an unknown terminal, saying how to find one', async () => {
    const r = await call('terminal_state', { terminal: 'nope' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^unknown_terminal: no terminal with id nope/);
    expect(textOf(r)).toContain('list_terminals');
    const s = await call('send_prompt', { terminal: 'nope', prompt: 'hello' });
    expect(s.isError).toBe(true);
    expect(textOf(s)).toMatch(/unknown_terminal/);
  });

  it('refuses bad input naming the field, before anything is typed', async () => {
    const before = model.log().length;
    const control = await call('send_prompt', { terminal: 'claude', prompt: 'hi\u001b[201~x' });
    expect(control.isError).toBe(true);
    expect(textOf(control)).toMatch(/control characters/);
    expect(textOf(control)).toMatch(/prompt/);

    const empty = await call('send_prompt', { terminal: 'claude', prompt: '' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/prompt/);

    const noTerminal = await call('send_prompt', { prompt: 'hello' });
    expect(noTerminal.isError).toBe(true);
    expect(textOf(noTerminal)).toMatch(/terminal/);

    const tooLong = await call('send_prompt', {
      terminal: 'claude',
      prompt: 'hello',
      timeoutSeconds: 999_999,
    });
    expect(tooLong.isError).toBe(true);
    expect(textOf(tooLong)).toMatch(/timeoutSeconds/);

    await new Promise((r) => setTimeout(r, 500));
    expect(model.log().length).toBe(before);
    expect(await agent.capture()).not.toContain('hello');
    expect(sup.get('claude').lastTurn.turnId).toBeNull();
  });

  it(
    'sends a prompt and answers with that turn id and its outcome',
    async () => {
      await untilReady();
      const from = model.log().length;
      model.enqueue({ delayMs: 500, text: 'The answer is forty-two.', chunkDelayMs: 80 });
      const r = await call('send_prompt', {
        terminal: 'claude',
        prompt: 'what is the answer?',
        timeoutSeconds: 60,
      });
      expect(r.isError, textOf(r)).toBeFalsy();
      const o = r.structuredContent as Record<string, string>;
      expect(o).toMatchObject({
        terminalId: 'claude',
        result: 'completed',
        outcome: 'success',
        completion: 'completed',
      });
      expect(o.turnId).toMatch(/^turn-\d+$/);
      expect(textOf(r)).toContain(`${o.turnId} on claude: success`);
      // What the model answered, read from Claude Code's own session record.
      expect(r.structuredContent).toMatchObject({
        reply: { text: 'The answer is forty-two.', source: 'record', truncated: false },
      });
      expect(textOf(r)).toMatch(
        /The agent's reply \(from its session record\):\nThe answer is forty-two\./,
      );
      expect(sup.get('claude').lastTurn).toMatchObject({ turnId: o.turnId, result: 'success' });
      const turns = model
        .log()
        .slice(from)
        .filter((e) => e.streaming);
      expect(turns.length).toBeGreaterThanOrEqual(1);
      expect(turns.every((e) => e.outcome === 'completed')).toBe(true);

      // Waiting again for a turn that is over answers its outcome at once.
      const again = await call('wait_for_turn', { terminal: 'claude', turnId: o.turnId });
      expect(again.structuredContent).toMatchObject({ turnId: o.turnId, outcome: 'success' });
    },
    STEP_MS,
  );

  it(
    'answers timeout with the turn id, refuses a second prompt while busy, and interrupts',
    async () => {
      await untilReady();
      const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} streams slowly.`);
      model.enqueue({ text: long.join(' '), chunkDelayMs: 250 });
      // A client that asks for progress hears from the wait while it lasts.
      const progress: number[] = [];
      const first = (await client.callTool(
        {
          name: 'send_prompt',
          arguments: { terminal: 'claude', prompt: 'write a long answer', timeoutSeconds: 3 },
        },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      )) as CallToolResult;
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(first.isError, textOf(first)).toBeFalsy();
      const t = first.structuredContent as { turnId: string; result: string; outcome: string };
      expect(t.result).toBe('timeout');
      expect(t.outcome).toBe('none');
      expect(textOf(first)).toContain('wait_for_turn');

      const busy = await call('send_prompt', { terminal: 'claude', prompt: 'another prompt' });
      expect(busy.isError).toBe(true);
      expect(textOf(busy)).toMatch(/^not_ready: terminal claude is not ready/);
      expect(textOf(busy)).toContain(`the terminal is busy: ${t.turnId} is running`);
      expect(textOf(busy)).toMatch(/interrupt/);

      const stopped = await call('interrupt', { terminal: 'claude' });
      expect(stopped.isError, textOf(stopped)).toBeFalsy();
      expect(stopped.structuredContent).toMatchObject({ ok: true, terminalId: 'claude' });

      const waited = await call('wait_for_turn', {
        terminal: 'claude',
        turnId: t.turnId,
        timeoutSeconds: 30,
      });
      expect(waited.isError, textOf(waited)).toBeFalsy();
      expect(waited.structuredContent).toMatchObject({
        turnId: t.turnId,
        outcome: 'interrupted',
      });
      expect(await agent.capture()).not.toContain('another prompt');
    },
    STEP_MS,
  );

  it('refuses interrupt and resume when the table refuses them, saying why', async () => {
    await untilReady();
    const i = await call('interrupt', { terminal: 'claude' });
    expect(i.isError).toBe(true);
    expect(textOf(i)).toMatch(/^refused: terminal claude refuses interrupt: no turn is running/);
    const r = await call('resume', { terminal: 'claude' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/refuses resume: the session is not blocked/);
  });

  const canSpawn = () => typeof (sup as unknown as { spawn?: unknown }).spawn === 'function';

  it('refuses spawn and stop on a supervisor that cannot start sessions, saying so', async (ctx) => {
    if (canSpawn()) ctx.skip();
    const spawned = await call('spawn', { tool: 'claude_code' });
    expect(spawned.isError).toBe(true);
    expect(textOf(spawned)).toMatch(/^refused: .*cannot start or stop agent sessions/);
    const stopped = await call('stop', { terminal: 'claude' });
    expect(stopped.isError).toBe(true);
    expect(textOf(stopped)).toMatch(/^refused: /);
    expect(sup.ids()).toContain('claude');
  });

  it('refuses a spawn with a bad argument, naming it, before anything starts', async () => {
    const before = sup.ids().length;
    const relative = await call('spawn', { tool: 'claude_code', cwd: 'relative/dir' });
    expect(relative.isError).toBe(true);
    expect(textOf(relative)).toMatch(/absolute path at cwd/);
    const tool = await call('spawn', { tool: 'Claude Code' });
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toMatch(/tool id .* at tool/);
    expect(sup.ids().length).toBe(before);
  });

  it(
    'spawns a real Claude Code, drives a turn and stops it (where the supervisor can spawn)',
    async (ctx) => {
      if (!canSpawn()) ctx.skip();
      const launch = prepareClaudeCode({
        home: join(SCRATCH, 'spawned-home'),
        cwd: join(SCRATCH, 'spawned-work'),
        baseUrl: model.url,
      });
      const started = await call('spawn', {
        tool: 'claude_code',
        cwd: launch.cwd,
        session: 'spawned',
        // The recipe finds the CLI on PATH: the pinned one first.
        env: { ...launch.env, PATH: `${dirname(CLAUDE_CODE_BIN)}:${launch.env.PATH}` },
        readyTimeoutSeconds: 60,
      });
      expect(started.isError, textOf(started)).toBeFalsy();
      const { terminalId } = started.structuredContent as { terminalId: string };
      model.enqueue({ delayMs: 300, text: 'Spawned and answering.', chunkDelayMs: 60 });
      const sent = await call('send_prompt', {
        terminal: terminalId,
        prompt: 'are you there?',
        timeoutSeconds: 60,
      });
      expect(sent.structuredContent, textOf(sent)).toMatchObject({ outcome: 'success' });
      const stopped = await call('stop', { terminal: terminalId });
      expect(stopped.isError, textOf(stopped)).toBeFalsy();
      expect(stopped.structuredContent).toMatchObject({ ok: true, terminalId });
      expect(sup.ids()).not.toContain(terminalId);
    },
    STEP_MS,
  );

  it(
    'works the same over a running service (--url): its verdicts, its refusals, its token',
    async () => {
      served = await serve({
        host: '127.0.0.1',
        port: 0,
        token: 'mcp-test-token',
        logger: pino({ level: 'silent' }),
        supervisor: {
          options: { socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } },
          discoverSeconds: null,
        },
      });
      const env = { PANEWARD_TOKEN: 'mcp-test-token' };
      await new ApiClient({ url: served.url }, env).attach({
        target: agent.target,
        tool: 'claude_code',
        id: 'remote',
      });
      const remote = await connect(remoteBackend(new ApiClient({ url: served.url }, env)));
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await remote.callTool({ name, arguments: args })) as CallToolResult;

      const deadline = Date.now() + 30_000;
      let listed = await call('list_terminals');
      while (
        (listed.structuredContent as { terminals: Array<{ readiness: string }> }).terminals[0]
          ?.readiness !== 'ready'
      ) {
        if (Date.now() > deadline) throw new Error(`not ready: ${textOf(listed)}`);
        await new Promise((r) => setTimeout(r, 250));
        listed = await call('list_terminals');
      }
      expect(listed.structuredContent).toMatchObject({
        terminals: [{ terminalId: 'remote', operations: { sendPrompt: { allowed: 'yes' } } }],
      });

      model.enqueue({ delayMs: 300, text: 'Served over HTTP.', chunkDelayMs: 60 });
      const sent = await call('send_prompt', {
        terminal: 'remote',
        prompt: 'answer over http',
        timeoutSeconds: 60,
      });
      expect(sent.isError, textOf(sent)).toBeFalsy();
      expect(sent.structuredContent).toMatchObject({
        terminalId: 'remote',
        result: 'completed',
        outcome: 'success',
      });

      const unknown = await call('send_prompt', { terminal: 'nope', prompt: 'hello' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^unknown_terminal: .*list_terminals/);

      const refused = await call('interrupt', { terminal: 'remote' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^refused: .*no turn is running/);

      if (canSpawn()) {
        // Started and stopped through the service, as `paneward spawn` does.
        const launch = prepareClaudeCode({
          home: join(SCRATCH, 'remote-home'),
          cwd: join(SCRATCH, 'remote-work'),
          baseUrl: model.url,
        });
        const started = await call('spawn', {
          tool: 'claude_code',
          cwd: launch.cwd,
          session: 'remote-spawned',
          env: { ...launch.env, PATH: `${dirname(CLAUDE_CODE_BIN)}:${launch.env.PATH}` },
          readyTimeoutSeconds: 60,
        });
        expect(started.isError, textOf(started)).toBeFalsy();
        const sc = started.structuredContent as {
          terminalId: string;
          state: { readiness: string };
          spawned: { tool: string } | null;
        };
        expect(sc.spawned?.tool).toBe('claude_code');
        const stopped = await call('stop', { terminal: sc.terminalId });
        expect(stopped.isError, textOf(stopped)).toBeFalsy();
        expect(stopped.structuredContent).toMatchObject({ ok: true, terminalId: sc.terminalId });
      }

      // Without the token, and with nobody listening: said so, nothing done.
      const noToken = await connect(remoteBackend(new ApiClient({ url: served.url }, {})));
      const denied = (await noToken.callTool({ name: 'list_terminals' })) as CallToolResult;
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toMatch(/^unauthorized: .*PANEWARD_TOKEN/);
      await noToken.close();
      const nobody = await connect(remoteBackend(new ApiClient({ url: 'http://127.0.0.1:9' }, {})));
      const gone = (await nobody.callTool({
        name: 'send_prompt',
        arguments: { terminal: 'remote', prompt: 'hello' },
      })) as CallToolResult;
      expect(gone.isError).toBe(true);
      expect(textOf(gone)).toMatch(/^unreachable: .*paneward serve/);
      await nobody.close();
      await remote.close();
    },
    STEP_MS,
  );
});
