import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { PanewardError } from '../errors.js';
import { duplicateKey, lineIndent, parseTree, spliceMember, type JsonNode } from './json-splice.js';
import { OURS } from './hook-options.js';

/** Claude Code's settings file: read, edited in place (paneward's entries only), written back. */
/** A settings file as read: its text and value, and how it was written (to write it back alike). */
interface SettingsText {
  text: string;
  value: Record<string, unknown>;
  indent: string | number;
  mode: number | null;
}

export function readSettings(file: string): SettingsText | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      refuseDanglingLink(file);
      return null;
    }
    throw new PanewardError('invalid_input', `${file}: cannot read it`, { cause: error });
  }
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new PanewardError(
      'invalid_input',
      `${file}: not valid JSON (${(error as Error).message}); nothing was written`,
      { details: { file } },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PanewardError(
      'invalid_input',
      `${file}: the settings must be a JSON object; nothing was written`,
      { details: { file } },
    );
  }
  if (text.trim() !== '') refuseDuplicateKeys(file, text);
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
  return {
    text: text.trim() === '' ? '{}\n' : text,
    value: value as Record<string, unknown>,
    indent,
    mode: statSync(file).mode & 0o777,
  };
}

/**
 * A key given twice in the settings' top level or anywhere in `hooks` is refused: `JSON.parse`
 * keeps the last, so the hooks of the first would be lost (and the CLI may read it otherwise).
 */
function refuseDuplicateKeys(file: string, text: string): void {
  const root = parseTree(text);
  if (root.kind !== 'object') return;
  const top = duplicateKey({ ...root, members: root.members.map((m) => ({ ...m, value: LEAF })) });
  const dup =
    top ??
    root.members
      .filter((m) => m.key === 'hooks')
      .map((m) => duplicateKey(m.value, 'hooks'))
      .find((d) => d !== null) ??
    null;
  if (dup) {
    const where = dup.path === '' ? 'the top level' : `\`${dup.path}\``;
    throw new PanewardError(
      'invalid_input',
      `${file}: the key ${JSON.stringify(dup.key)} is given twice in ${where}; one of them would be lost, so nothing was written (keep one)`,
      { details: { file, field: dup.path === '' ? dup.key : `${dup.path}.${dup.key}` } },
    );
  }
}

const LEAF: JsonNode = { kind: 'scalar', start: 0, end: 0 };

/** A symbolic link whose target is missing: where to write is not clear, so it is refused. */
export function refuseDanglingLink(file: string): void {
  let link = false;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return;
  }
  if (link) {
    throw new PanewardError(
      'invalid_input',
      `${file}: a symbolic link to ${readlinkSync(file)}, which does not exist; nothing was written`,
      { details: { file } },
    );
  }
}

/**
 * Writes the settings' new text: the file whole or not at all (a temporary file beside it, then
 * a rename). A symbolic link (a dotfiles folder's) is written through: the file it points to is
 * replaced, beside itself, and the link stays.
 */
export function writeSettings(file: string, text: string, mode: number | null): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet: created where it is named.
  }
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.paneward-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: mode ?? 0o644 });
  if (mode !== null) chmodSync(tmp, mode);
  renameSync(tmp, target);
}

export type Group = { matcher?: unknown; hooks?: unknown };

/** The `hooks` object of the settings, checked; null when there is none. */
export function hooksOf(
  file: string,
  settings: Record<string, unknown>,
): Record<string, unknown> | null {
  const hooks = settings.hooks;
  if (hooks === undefined) return null;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    throw new PanewardError(
      'invalid_input',
      `${file}: field \`hooks\` must be an object; nothing was written`,
      { details: { file, field: 'hooks' } },
    );
  }
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      throw new PanewardError(
        'invalid_input',
        `${file}: field \`hooks.${event}\` must be an array; nothing was written`,
        { details: { file, field: `hooks.${event}` } },
      );
    }
  }
  return hooks as Record<string, unknown>;
}

export const isOurs = (h: unknown) =>
  typeof h === 'object' &&
  h !== null &&
  typeof (h as { command?: unknown }).command === 'string' &&
  OURS.test((h as { command: string }).command);

/*
 * The settings are edited as text, so that uninstalling gives back the very bytes the file had
 * before installing. Install adds, and uninstall takes out, in forms that tell them apart:
 *  - a group in an event that has groups: after the last one, `,` newline indent group;
 *  - a group in an event the user has empty (`"Stop": []`): right after `[`, no space before it
 *    (uninstalling takes out the group alone, and `[]` is back as it was);
 *  - an event the user has not: a member `"Stop": [` newline ... `]`, after the last event, or
 *    right after `{` when `hooks` is empty (again no space before it);
 *  - no `hooks` at all: the member `"hooks"` with the three events, after the last member.
 * So an event (or `hooks`) whose only entry is ours, with space before it, was added by
 * install: uninstall takes it out whole. With no space before it, it was the user's, and stays.
 */

/** The text with [start, end) replaced by `insert`. */
const edit = (text: string, start: number, end: number, insert = '') =>
  text.slice(0, start) + insert + text.slice(end);

interface Entry {
  start: number;
  end: number;
}

const entriesOf = (node: JsonNode): Entry[] =>
  node.kind === 'object'
    ? node.members.map((m) => ({ start: m.keyStart, end: m.value.end }))
    : node.kind === 'array'
      ? node.items
      : [];

/**
 * The text without entry `k` of `container` (an item, or a member): with the separator before
 * it (or after it, when it is the first). The only entry goes alone when nothing stood before it
 * (the container was the user's, empty); otherwise the container was added with it, and
 * `whole()` takes the container out instead.
 */
function removeEntry(text: string, container: JsonNode, k: number, whole: () => string): string {
  const all = entriesOf(container);
  const e = all[k]!;
  if (k > 0) return edit(text, all[k - 1]!.end, e.end);
  if (all.length > 1) return edit(text, e.start, all[1]!.start);
  if (e.start === container.start + 1) return edit(text, e.start, e.end);
  return whole();
}

/**
 * Takes paneward's hooks out of the settings' text, one at a time: a group that holds only ours
 * goes whole, with the event and `hooks` when install added them; our hook in a group of the
 * user's goes alone. Returns the text and how many hooks it took out.
 */
export function stripOurs(text: string): { text: string; removed: number } {
  let removed = 0;
  for (;;) {
    const root = parseTree(text);
    if (root.kind !== 'object') return { text, removed };
    const hooksAt = root.members.findIndex((m) => m.key === 'hooks');
    const hooks = root.members[hooksAt]?.value;
    if (!hooks || hooks.kind !== 'object') return { text, removed };
    const next = nextStrip(text, hooks);
    if (next === null) return { text, removed };
    text = next.text;
    removed += next.removed;
  }
}

function nextStrip(text: string, hooks: JsonNode & { kind: 'object' }) {
  const dropHooks = () => spliceMember(text, 'hooks', undefined, 2);
  for (const [ei, event] of hooks.members.entries()) {
    const groups = event.value;
    if (groups.kind !== 'array') continue;
    for (const [gi, group] of groups.items.entries()) {
      if (group.kind !== 'object') continue;
      const list = group.members.find((m) => m.key === 'hooks')?.value;
      if (!list || list.kind !== 'array') continue;
      const ours = list.items.flatMap((h, i) =>
        isOurs(JSON.parse(text.slice(h.start, h.end))) ? [i] : [],
      );
      if (ours.length === 0) continue;
      if (ours.length < list.items.length) {
        return { text: removeEntry(text, list, ours[0]!, () => text), removed: 1 };
      }
      const dropEvent = () => removeEntry(text, hooks, ei, dropHooks);
      return { text: removeEntry(text, groups, gi, dropEvent), removed: ours.length };
    }
  }
  return null;
}

/** Adds paneward's group to each of `events`, in the forms above. */
export function addOurs(
  text: string,
  group: unknown,
  events: readonly string[],
  indent: string | number,
): string {
  const step = typeof indent === 'number' ? ' '.repeat(indent) : indent;
  const render = (value: unknown, base: string) =>
    JSON.stringify(value, null, step).split('\n').join(`\n${base}`);
  const root = parseTree(text);
  const hooksMember = root.kind === 'object' ? root.members.find((m) => m.key === 'hooks') : null;
  if (!hooksMember) {
    return spliceMember(text, 'hooks', Object.fromEntries(events.map((e) => [e, [group]])), indent);
  }
  for (const event of events) {
    const hooks = (parseTree(text) as JsonNode & { kind: 'object' }).members.find(
      (m) => m.key === 'hooks',
    )!;
    const obj = hooks.value as JsonNode & { kind: 'object' };
    const inHooks = lineIndent(text, hooks.keyStart) + step;
    const m = obj.members.find((x) => x.key === event);
    if (m && m.value.kind === 'array') {
      const base = lineIndent(text, m.keyStart);
      const last = m.value.items.at(-1);
      text = last
        ? edit(text, last.end, last.end, `,\n${base}${step}${render(group, base + step)}`)
        : edit(text, m.value.start + 1, m.value.start + 1, render(group, base));
      continue;
    }
    const member = `${JSON.stringify(event)}: ${render([group], inHooks)}`;
    const lastMember = obj.members.at(-1);
    text = lastMember
      ? edit(text, lastMember.value.end, lastMember.value.end, `,\n${inHooks}${member}`)
      : edit(text, obj.start + 1, obj.start + 1, member);
  }
  return text;
}
