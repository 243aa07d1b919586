import fc from 'fast-check';

/**
 * Words wrapped the way the CLIs wrap a long message: the first row after `first`, every row
 * under it after `rest`, each row, prefix included, at most `width` columns (a word longer than
 * a row stands alone on it). Variants of a real frame are drawn with it at other widths.
 */
export function wrapWords(text: string, width: number, first = '', rest = first): string[] {
  const rows: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const room = width - (rows.length === 0 ? first : rest).length;
    if (line !== '' && line.length + 1 + word.length > room) {
      rows.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') rows.push(line);
  return rows.map((l, i) => (i === 0 ? first : rest) + l);
}

/** A few plain words: a message's tail, a prompt or a reply nobody recorded. */
export const fillerWords = fc
  .array(fc.constantFrom('alpha', 'beta', 'gamma', 'request', 'project', 'file', 'x7', 'ok'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((w) => w.join(' '));

/**
 * The rows of a screen and where a message stands on it: its first row (the first that `head`
 * matches) and the rows under it indented by exactly `indent` spaces, up to `end` (exclusive).
 */
export function messageAt(
  text: string,
  head: RegExp,
  indent: number,
): { rows: string[]; at: number; end: number } {
  const rows = text.split('\n');
  const at = rows.findIndex((l) => head.test(l));
  if (at < 0) throw new Error(`no row matching ${head} on this screen`);
  const under = new RegExp(`^ {${indent}}\\S`);
  let end = at + 1;
  while (end < rows.length && under.test(rows[end]!)) end++;
  return { rows, at, end };
}

/** The provider's words for a prompt over the model's window (OpenAI's), with any numbers. */
export const overTheWindow = fc
  .tuple(fc.integer({ min: 1000, max: 2_000_000 }), fc.integer({ min: 1000, max: 3_000_000 }))
  .map(
    ([max, got]) =>
      `This model's maximum context length is ${max} tokens. However, your messages resulted in ${got} tokens.`,
  );
