/**
 * Keys whose values hold what a pane shows or a prompt typed into one: any key naming text, a
 * screen, a projection of it (and its baseline), a surface signature (which embeds the
 * projection) or a prompt.
 */
const PANE_TEXT_KEY = /text|ansi|screen|projection|baseline|signature|prompt|settl/i;

/** A string this long, or with a line break, is taken for pane text whatever its key. */
const LONG = 80;

/** Strings kept whatever their length: the machine definitions Stately draws. */
const KEEP = new Set(['definition']);

const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A copy of `value` with every string under a pane-text key replaced by its length
 * (`‹312 chars›`), for inspection events that leave the process. Only plain objects and arrays
 * are copied; anything else (an actor reference) is passed through as it is.
 */
export function stripPaneText<T>(value: T, seen = new WeakSet<object>()): T {
  if (Array.isArray(value)) {
    if (seen.has(value)) return value;
    seen.add(value);
    return value.map((v: unknown) => stripPaneText(v, seen)) as T;
  }
  if (!isPlain(value)) return value;
  if (seen.has(value)) return value;
  seen.add(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      typeof v === 'string' &&
      !KEEP.has(k) &&
      (PANE_TEXT_KEY.test(k) || v.length > LONG || v.includes('\n'))
        ? `‹${v.length} chars›`
        : stripPaneText(v, seen);
  }
  return out as T;
}
