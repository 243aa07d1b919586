import type { Command } from 'commander';
import { z } from 'zod';
import { startDemo, type RunningDemo } from '../tooling/demo/demo.js';
import { describeAgent } from '../tooling/demo/guide.js';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { endBy, untilStopSignal } from './signals.js';

/** A stop still under way this long after the signal is finished by force. */
const STOP_DEADLINE_MS = 1700;

/** What `paneward demo` prints once it runs: where to look, and how its CLIs run offline. */
export function demoBanner(demo: RunningDemo, live: boolean): string {
  const agents = demo.agents.map((recipe) =>
    describeAgent({ recipe, socketName: demo.socketName, serverUrl: demo.url }),
  );
  return [
    `paneward demo: ${demo.terminals.length} terminal${demo.terminals.length === 1 ? '' : 's'} (${demo.terminals.join(', ')})`,
    `  dashboard     ${demo.url}`,
    `  tmux          tmux -L ${demo.socketName} attach   (to look at the panes)`,
    `  model server  ${demo.modelUrl}   (built in, on loopback: the CLIs below talk to it, offline)`,
    `  scratch       ${demo.scratch}   (the CLIs' homes and fake keys; removed on Ctrl-C)`,
    '',
    ...(agents.length === 0
      ? [
          'No agent CLI is installed (scripts/install-agent.sh <tool>): the Start form has none to start.',
        ]
      : [
          live
            ? 'Each CLI runs in its pane as below; start one more the same way by hand, or with paneward spawn:'
            : "The dashboard's Start form fills in these set-ups; the same by hand, or with paneward spawn:",
          '',
          agents.join('\n\n'),
        ]),
    '',
    'Ctrl-C stops it and removes everything it started.',
  ].join('\n');
}

export const DemoOptions = z.strictObject({
  port: z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be a whole number' })
    .min(0)
    .max(65535)
    .default(7420),
  host: z.string().min(1).default('127.0.0.1'),
  live: z.boolean().default(false),
  socketName: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash or underscore, at most 64')
    .optional(),
});

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Try paneward with no agent CLI and no key: panes playing real recordings of Claude Code, ' +
        'Codex and Gemini CLI in a private tmux server, supervised, with the dashboard served.',
    )
    .option('--port <port>', 'dashboard port (0: any free one)', '7420')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('-L, --socket-name <name>', 'the private tmux server (default paneward-demo-<pid>)')
    .option(
      '--live',
      'run the installed agent CLIs (scripts/install-agent.sh) offline against the built-in model server instead',
    )
    .action(async (opts: Record<string, unknown>) => {
      const parsed = DemoOptions.safeParse(opts);
      if (!parsed.success) {
        throw new PanewardError('invalid_input', `demo: ${describeZodError(parsed.error)}`);
      }
      const o = parsed.data;
      let demo: RunningDemo | undefined;
      // A second Ctrl-C while stopping ends everything at once, leaving nothing behind either.
      const signals = untilStopSignal(() => {
        process.stdout.write('paneward demo: second signal: ending everything at once (SIGKILL)\n');
        demo?.killNow();
      });
      try {
        demo = await startDemo({
          port: o.port,
          host: o.host,
          live: o.live,
          ...(o.socketName ? { socketName: o.socketName } : {}),
        });
      } catch (error) {
        signals.release();
        throw error;
      }
      process.stdout.write(demoBanner(demo, o.live) + '\n');
      try {
        const signal = await signals.stopped;
        const t0 = Date.now();
        const parts = demo.parts();
        const width = Math.max(...parts.map(([k]) => k.length));
        process.stdout.write(
          `paneward demo: stopping (${signal}; again ends it at once, leaving nothing either):\n` +
            parts.map(([k, v]) => `  ${k.padEnd(width)}  ${v}\n`).join(''),
        );
        const running = demo;
        const deadline = setTimeout(() => {
          process.stdout.write(
            `paneward demo: not stopped within ${STOP_DEADLINE_MS / 1000} s: ending what is left at once\n`,
          );
          running.killNow();
          endBy(signal, signals.release);
        }, STOP_DEADLINE_MS);
        await demo.stop();
        clearTimeout(deadline);
        process.stdout.write(
          `paneward demo: stopped in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
        );
        // Everything it started has ended; a closed server's last handle is not waited for.
        process.exitCode = 0;
        setImmediate(() => process.exit());
      } finally {
        signals.release();
      }
    });
}
