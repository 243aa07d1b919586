/** A screen as right-trimmed lines, without the trailing blank ones. */
export function screenLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) lines[i] = lines[i]!.trimEnd();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The last line with any text on it, as drawn; '' when there is none. */
export function lastNonBlank(lines: readonly string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== '') return lines[i]!;
  return '';
}
