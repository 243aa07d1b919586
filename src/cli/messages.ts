import type { Command } from 'commander';

/**
 * Error messages in the command line's own terms. The library, the option schemas and the HTTP
 * service name what was wrong by its field (`field \`dataDir\``, `path: field \`id\``, `body:
 * field \`target\``); a person at the command line typed `--data-dir`, `<terminal>` or
 * `<target>`, so each field is named back as the option or argument it came from, the HTTP
 * words (path, body, query) are dropped, and zod's generic sentences are said plainly.
 */

/** A field's name → what the user typed for it. */
export type FieldNames = Readonly<Record<string, string>>;

/**
 * The fields the client commands send to a running server (path, body and query of its
 * routes, and the supervisor's own checks behind them), as the commands' options and arguments.
 */
export const CLIENT_FIELDS: FieldNames = {
  id: '<terminal>',
  terminalId: '<terminal>',
  target: '<target>',
  text: '<text>',
  force: '--force',
  tool: '--tool',
  host: '--host',
  timeoutSeconds: '--timeout',
  timeout: '--timeout',
  since: '--since',
  terminal: '--terminal',
  url: '--url',
  limit: '--limit',
  sessionWallClockSeconds: '--budget',
  readyTimeoutSeconds: '--ready-timeout',
  removeWorktree: '--remove-worktree',
  args: '[args...]',
};

/** The options and arguments of one command, by the field names commander hands over. */
export function fieldNamesOf(cmd: Command): FieldNames {
  const names: Record<string, string> = {};
  for (const o of cmd.options) {
    const flag = o.long ?? o.short;
    if (flag) names[o.attributeName()] = flag;
  }
  for (const a of cmd.registeredArguments) {
    const name = a.name();
    const said = a.required
      ? `<${name}${a.variadic ? '...' : ''}>`
      : `[${name}${a.variadic ? '...' : ''}]`;
    names[name] = said;
    // One of several (`[targets...]`) is checked as a single `target`.
    if (a.variadic && name.endsWith('s')) names[name.slice(0, -1)] ??= said;
  }
  return names;
}

/** zod's generic sentences, as a person would say them. */
const PLAIN: ReadonlyArray<readonly [RegExp, (...m: string[]) => string]> = [
  [/^Too small: expected string to have >=1 characters?$/, () => 'must not be empty'],
  [/^Too small: expected (?:number|bigint) to be >=?(.+)$/, (n) => `must be at least ${n}`],
  [/^Too big: expected (?:number|bigint) to be <=?(.+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (n) => `must be at most ${n} long`],
  [/^Invalid input: expected number, received NaN$/, () => 'must be a number'],
  [/^Invalid input: expected (\w+), received undefined$/, () => 'is required'],
  [/^Invalid input: expected (\w+), received \w+$/, (t) => `must be a ${t}`],
  [
    /^Invalid option: expected one of (.+)$/,
    (list) => `must be one of ${list.replaceAll('"', '').split('|').join(', ')}`,
  ],
  [/^Invalid string: must match pattern .*$/, () => 'has characters that are not allowed'],
  [/^unknown field$/, () => 'unknown option'],
];

function plain(sentence: string): string {
  for (const [re, say] of PLAIN) {
    const m = re.exec(sentence);
    if (m) return say(...m.slice(1));
  }
  return sentence;
}

/** Where a field was found, in words of HTTP or of the library: not said at the command line. */
const WHERE = /^(?:(?:path|body|query|header|request|attach|input): )+/;

const FIELD = /^field `([^`]+)`: (.*)$/s;

/**
 * One error message in the command line's terms. `names` maps field names to the options and
 * arguments the user typed (fieldNamesOf, CLIENT_FIELDS); a field it does not know is named
 * `--kebab-case`, which is how every option of this command line is spelled.
 */
export function cliMessage(message: string, names: FieldNames = {}): string {
  // "watch: field `a`: x; field `b`: y": the command's own name stays, the fields are renamed.
  const command = /^([a-z]+): (?=field `)/.exec(message)?.[1];
  const rest = command === undefined ? message : message.slice(command.length + 2);
  const body = rest.replace(WHERE, '');
  if (!FIELD.test(body)) return message;
  const parts = body.split(/; (?=field `)/).map((part) => {
    const m = FIELD.exec(part);
    if (!m) return part;
    const [, field, sentence] = m as unknown as [string, string, string];
    const name = nameOf(field, names);
    const said = plain(sentence);
    // A sentence that already names its option ("--stall-timeout must be ...") is said once.
    return said.startsWith(`${name} `) ? said : `${name}: ${said}`;
  });
  const said = parts.join('; ');
  return command !== undefined && !WHERE.test(`${command}: `) ? `${command}: ${said}` : said;
}

function nameOf(field: string, names: FieldNames): string {
  if (field === '(line)') return 'the input';
  // A nested field (`config.staleActiveSeconds`) is set by the option of its last part; an
  // entry of a map or a list (`env.PATH`, `args.0`) by the option of its first.
  const parts = field.split('.');
  const last = parts.at(-1)!;
  const first = parts[0]!;
  return (
    names[field] ??
    names[last] ??
    // The chart settings' options drop the unit: `settleSeconds` is `--settle`.
    names[last.replace(/Seconds$/, '')] ??
    (parts.length > 1 && !/^[a-z][a-zA-Z]*$/.test(last) ? names[first] : undefined) ??
    `--${last.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
  );
}
