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
