import type { Command } from 'commander';
import { z } from 'zod';
import { startDemo } from '../tooling/demo/demo.js';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { untilStopSignal } from './signals.js';

export const DemoOptions = z.strictObject({
  port: z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be a whole number' })
    .min(0)
    .max(65535)
    .default(7420),
  host: z.string().min(1).default('127.0.0.1'),
  live: z.boolean().default(false),
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
      const signals = untilStopSignal();
      let demo: Awaited<ReturnType<typeof startDemo>>;
      try {
        demo = await startDemo({ port: o.port, host: o.host, live: o.live });
      } catch (error) {
        signals.release();
        throw error;
      }
      process.stdout.write(
        `paneward demo: ${demo.terminals.length} terminals (${demo.terminals.join(', ')})\n` +
          `  dashboard   ${demo.url}\n` +
          `  tmux        tmux -L ${demo.socketName} attach   (to look at the panes)\n` +
          `Ctrl-C stops it and removes everything it started.\n`,
      );
      try {
        await signals.stopped;
        await demo.stop();
      } finally {
        signals.release();
      }
    });
}
