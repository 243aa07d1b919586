import { NEVER, asyncScheduler } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import type { TerminalInput } from '../../machines/terminal.js';
import { Journal } from '../../src/journal/journal.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import type { FrameSource } from '../../src/observe/frame-source.js';
import { getProfile } from '../../src/profiles/index.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import { provideTerminal, RunningTerminals } from '../../src/terminal/runtime.js';

/**
 * One terminal actor with the real runtime, on a pane whose samples never come and whose tmux
 * answers every command at once (a capture shows the last text loaded): what the runtime types,
 * and where its commands are found, without a tmux server.
 */
function runtime(
  detectTool: () => Promise<string> = async () => 'claude_code',
  over: Partial<TerminalInput> = {},
) {
  const typed: string[][] = [];
  let loaded = '';
  const source: FrameSource = {
    samples: () => NEVER,
    transport: {
      run: async (args, opts) => {
        typed.push(args.map(String));
        if (args[0] === 'load-buffer') loaded = opts?.input ?? '';
        return args[0] === 'capture-pane' ? `> ${loaded}\n` : '';
      },
      close: async () => {},
    },
    close: async () => {},
  };
  const running = new RunningTerminals();
  const config = KernelConfig.parse({});
  const logic = provideTerminal({
    source,
    journal: new Journal({ dataDir: null }),
    hub: new InspectionHub(),
    scheduler: asyncScheduler,
    config,
    profileFor: (tool, version) => getProfile(tool, version),
    detectTool,
    running,
  });
  const input: TerminalInput = {
    terminalId: 't1',
    request: { target: '%1', tool: 'auto' },
    config,
    backoff: { initialSeconds: 60, maxSeconds: 60 },
    ...over,
  };
  const actor = createActor(logic, { input }).start();
  actors.push(actor);
  return { actor, running, typed };
}

const actors: Actor<ReturnType<typeof provideTerminal>>[] = [];
afterEach(() => {
  for (const a of actors.splice(0)) a.stop();
});

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('a terminal runtime', () => {
  it('puts its commands in only while the terminal runs', async () => {
    let detected!: (tool: string) => void;
    const t = runtime(() => new Promise((r) => (detected = r)));
    expect(t.actor.getSnapshot().value).toBe('attaching');
    expect(t.running.get('t1')).toBeUndefined();
    detected('claude_code');
    await settle();
    expect(t.actor.getSnapshot().value).toEqual('running');
    expect(t.running.get('t1')?.screen()).toBeNull();
    t.actor.send({ type: 'evt_runtime_failed', error: 'pane vanished' });
    expect(t.actor.getSnapshot().value).toBe('restarting');
    expect(t.running.get('t1')).toBeUndefined();
  });

  it('types a prompt through typed calls, on the completion actor the terminal handed it', async () => {
    const t = runtime();
    await settle();
    const commands = t.running.get('t1')!;
    const turnId = await commands.submit({ text: 'fix the test', force: true });
    expect(turnId).toBe('turn-1');
    const terminal = t.actor.getSnapshot();
    expect(terminal.context.completionId).toBe('completion:turn-1');
    expect(terminal.context.completion).toBe(terminal.children['completion:turn-1']);
    // The turn's completion is the terminal's child: the pipeline drives the actor it was handed.
    expect((terminal.context.state as { completion: { turnId: string } }).completion.turnId).toBe(
      'turn-1',
    );
    const verbs = t.typed.map((a) => a[0]);
    // The pane is read before the paste (while it stays so, the CLI has not read the paste);
    // Enter once the pasted text is drawn and the screen held still for one more look.
    const enter = verbs.indexOf('send-keys');
    expect(verbs.slice(0, 3)).toEqual(['load-buffer', 'capture-pane', 'paste-buffer']);
    expect(verbs.slice(3, enter)).toEqual(['capture-pane', 'capture-pane']);
    expect(t.typed[enter]).toEqual(['send-keys', '-t', '%1', 'Enter']);
  }, 10_000);

  it('refuses a prompt the gate refuses, typing nothing', async () => {
    const t = runtime();
    await settle();
    await expect(t.running.get('t1')!.submit({ text: 'hi' })).rejects.toMatchObject({
      code: 'not_ready',
    });
    expect(t.typed).toEqual([]);
  });
});

describe('RunningTerminals', () => {
  it('takes out only the commands it was given by that runtime', () => {
    const r = new RunningTerminals();
    const a = {} as never;
    const b = {} as never;
    const releaseA = r.add('t1', a);
    r.add('t1', b);
    releaseA();
    expect(r.get('t1')).toBe(b);
  });
});
