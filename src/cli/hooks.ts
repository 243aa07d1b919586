import type { Command } from 'commander';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import {
  hookStatus,
  installHooks,
  uninstallHooks,
  type HookChange,
  type HookStatus,
} from '../hooks/install.js';
import { describeZodError } from '../internal/zod-errors.js';
import { DEFAULT_URL } from '../service/address.js';
import { renderTable } from './table.js';

const Scope = z.enum(['user', 'project', 'local'], {
  error: 'must be user, project or local',
});

export const HooksInstallOptions = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http:// URL of the service' })
    .default(DEFAULT_URL),
  tokenFile: z.string().min(1).optional(),
  scope: Scope.default('user'),
  json: z.boolean().default(false),
});

const HooksScopeOptions = z.strictObject({
  scope: Scope.default('user'),
  json: z.boolean().default(false),
});

function parse<T extends z.ZodType>(schema: T, opts: unknown): z.output<T> {
  const r = schema.safeParse(opts);
  if (!r.success) throw new PanewardError('invalid_input', describeZodError(r.error));
  return r.data;
}

const print = (line: string) => process.stdout.write(`${line}\n`);
const changed = (c: HookChange, json: boolean) =>
  print(json ? JSON.stringify(c) : `${c.tool}: ${c.result} (${c.file})`);

/** `paneward hooks install|uninstall|status` (docs/hooks.md). */
export function registerHooks(program: Command): void {
  const hooks = program
    .command('hooks')
    .description(
      "Install, remove or show the hook that posts an agent CLI's own turn events to the local service (opt-in; claude_code, cline, opencode, kilo).",
    );
  hooks
    .command('install')
    .argument('<tool>', 'the agent CLI (claude_code, cline, opencode or kilo)')
    .description("Write paneward's hook into the CLI's settings file (installing twice is once).")
    .option('--url <url>', `the service the hook posts to (default ${DEFAULT_URL})`)
    .option('--token-file <file>', 'the hook reads the bearer token from this file when it runs')
    .option('--scope <scope>', 'user (default), project (.claude/settings.json) or local')
    .option('--json', 'print the change as JSON')
    .action((tool: string, opts: Record<string, unknown>) => {
      const o = parse(HooksInstallOptions, opts);
      changed(
        installHooks(tool, {
          url: o.url,
          scope: o.scope,
          ...(o.tokenFile ? { tokenFile: o.tokenFile } : {}),
        }),
        o.json,
      );
    });
  hooks
    .command('uninstall')
    .argument('<tool>', 'the agent CLI (claude_code, cline, opencode or kilo)')
    .description("Take paneward's hook out of the CLI's settings file, and nothing else.")
    .option('--scope <scope>', 'user (default), project or local')
    .option('--json', 'print the change as JSON')
    .action((tool: string, opts: Record<string, unknown>) => {
      const o = parse(HooksScopeOptions, opts);
      changed(uninstallHooks(tool, { scope: o.scope }), o.json);
    });
  hooks
    .command('status')
    .description("Where paneward's hook is installed, and where it posts.")
    .option('--json', 'print JSON')
    .action((opts: Record<string, unknown>) => {
      const json = opts.json === true;
      const rows: HookStatus[] = hookStatus({});
      if (json) {
        print(JSON.stringify(rows));
        return;
      }
      print(
        renderTable(
          ['TOOL', 'SCOPE', 'EVENTS', 'URL', 'FILE'],
          rows.map((r) => [
            r.tool,
            r.scope,
            r.events.length > 0 ? r.events.join(',') : '-',
            r.url ?? '-',
            r.file,
          ]),
        ),
      );
    });
}
