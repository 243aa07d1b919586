/**
 * Projection normalisation (statecharts.md §2): split lines, right-trim each, join with `\n`,
 * trim the whole. Trailing spaces and blank edges never count as a change.
 */
export function normalizeProjection(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}
