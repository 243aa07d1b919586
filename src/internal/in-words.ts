/** A list as a sentence says it: `a`, `a or b`, `a, b or c`. */
export function inWords(items: readonly string[], last = 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}
