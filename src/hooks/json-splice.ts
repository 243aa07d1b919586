/**
 * Replaces, adds or removes one top-level member of a JSON object's text, leaving every other
 * byte of it as it was (a settings file keeps its own layout, comments aside: JSON has none).
 * The text must be valid JSON (checked with `JSON.parse` first).
 */

interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

const WS = /\s/;

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.test(text[i]!)) i += 1;
  return i;
}

function skipString(text: string, i: number): number {
  i += 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (;;) {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth += 1;
      else if (d === '}' || d === ']') depth -= 1;
      i += 1;
      if (depth === 0) return i;
    }
  }
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i += 1;
  return i;
}

/** The top-level members of an object's text, and where its braces are. */
function membersOf(text: string): { open: number; close: number; members: Member[] } {
  const open = skipWs(text, 0);
  const members: Member[] = [];
  let i = skipWs(text, open + 1);
  while (text[i] !== '}') {
    const keyStart = i;
    i = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, i)) as string;
    i = skipWs(text, skipWs(text, i) + 1); // past ':'
    const valueStart = i;
    i = skipValue(text, i);
    members.push({ key, keyStart, valueStart, valueEnd: i });
    i = skipWs(text, i);
    if (text[i] === ',') i = skipWs(text, i + 1);
  }
  return { open, close: i, members };
}

/**
 * The text with member `key` set to `value` (rendered with `indent`, one level deep), or taken
 * out when `value` is undefined. A new member goes last.
 */
export function spliceMember(
  text: string,
  key: string,
  value: unknown,
  indent: string | number,
): string {
  const ind = typeof indent === 'number' ? ' '.repeat(indent) : indent;
  const { open, close, members } = membersOf(text);
  const at = members.findIndex((m) => m.key === key);
  if (value === undefined) {
    if (at < 0) return text;
    const m = members[at]!;
    const prev = members[at - 1];
    const next = members[at + 1];
    if (prev) return text.slice(0, prev.valueEnd) + text.slice(m.valueEnd);
    if (next) return text.slice(0, m.keyStart) + text.slice(next.keyStart);
    return text.slice(0, open + 1) + text.slice(close);
  }
  const rendered = JSON.stringify(value, null, ind).split('\n').join(`\n${ind}`);
  if (at >= 0) {
    const m = members[at]!;
    return text.slice(0, m.valueStart) + rendered + text.slice(m.valueEnd);
  }
  const member = `${JSON.stringify(key)}: ${rendered}`;
  const last = members.at(-1);
  if (last) return `${text.slice(0, last.valueEnd)},\n${ind}${member}${text.slice(last.valueEnd)}`;
  return `${text.slice(0, open)}{\n${ind}${member}\n}${text.slice(close + 1)}`;
}

/** A JSON value's text: where it starts and ends, and for an object or array what it holds. */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number };

/** A member of an object's text: its key, where the key starts, and its value. */
export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

function nodeAt(text: string, i: number): JsonNode {
  const c = text[i];
  if (c === '{') {
    const members: JsonMember[] = [];
    let j = skipWs(text, i + 1);
    while (text[j] !== '}') {
      const keyStart = j;
      j = skipString(text, j);
      const key = JSON.parse(text.slice(keyStart, j)) as string;
      j = skipWs(text, skipWs(text, j) + 1); // past ':'
      const value = nodeAt(text, j);
      members.push({ key, keyStart, value });
      j = skipWs(text, value.end);
      if (text[j] === ',') j = skipWs(text, j + 1);
    }
    return { kind: 'object', start: i, end: j + 1, members };
  }
  if (c === '[') {
    const items: JsonNode[] = [];
    let j = skipWs(text, i + 1);
    while (text[j] !== ']') {
      const item = nodeAt(text, j);
      items.push(item);
      j = skipWs(text, item.end);
      if (text[j] === ',') j = skipWs(text, j + 1);
    }
    return { kind: 'array', start: i, end: j + 1, items };
  }
  return { kind: 'scalar', start: i, end: skipValue(text, i) };
}

/**
 * The text's value with where each part of it is (the text must be valid JSON: checked with
 * `JSON.parse` first). Unlike `JSON.parse`, it keeps every member of an object, a key given
 * twice included (see {@link duplicateKey}).
 */
export function parseTree(text: string): JsonNode {
  return nodeAt(text, skipWs(text, 0));
}

/**
 * The first key given twice in one object of `node` (depth first), as a path such as
 * `hooks.Stop[0]` and the key; null when there is none.
 */
export function duplicateKey(node: JsonNode, path = ''): { path: string; key: string } | null {
  if (node.kind === 'object') {
    const seen = new Set<string>();
    for (const m of node.members) {
      if (seen.has(m.key)) return { path, key: m.key };
      seen.add(m.key);
    }
    for (const m of node.members) {
      const d = duplicateKey(m.value, path === '' ? m.key : `${path}.${m.key}`);
      if (d) return d;
    }
  } else if (node.kind === 'array') {
    for (const [i, item] of node.items.entries()) {
      const d = duplicateKey(item, `${path}[${i}]`);
      if (d) return d;
    }
  }
  return null;
}

/** The whitespace that starts the line `pos` is on. */
export function lineIndent(text: string, pos: number): string {
  const from = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(from))![0];
}
