/** A prompt box drawn between two rules, as several CLIs draw theirs. */
export interface RuleBox {
  /** Index of the rule above the box and of the rule below it. */
  top: number;
  bottom: number;
  /** The lines between the two rules. */
  inner: string[];
}

/**
 * The last box on the screen whose two rules match `rule` and whose first inner line passes
 * `opens` (the prompt glyph). At most `maxInner` lines may sit between the rules.
 */
export function findRuleBox(
  lines: readonly string[],
  rule: RegExp,
  opens: (firstInner: string) => boolean,
  maxInner = 12,
): RuleBox | null {
  for (let bottom = lines.length - 1; bottom > 0; bottom--) {
    if (!rule.test(lines[bottom]!)) continue;
    let top = bottom - 1;
    while (top >= 0 && bottom - top - 1 <= maxInner && !rule.test(lines[top]!)) top--;
    if (top < 0 || bottom - top - 1 > maxInner) continue;
    const inner = lines.slice(top + 1, bottom);
    if (inner.length > 0 && opens(inner[0]!)) return { top, bottom, inner };
  }
  return null;
}

/** Index of the last line (before `end`) that passes `test`, or -1. */
export function lastIndexWhere(
  lines: readonly string[],
  test: (line: string) => boolean,
  end = lines.length,
): number {
  for (let i = Math.min(end, lines.length) - 1; i >= 0; i--) if (test(lines[i]!)) return i;
  return -1;
}
