import { z } from 'zod';

/** The longest prompt paneward types (characters). */
export const MAX_PROMPT_CHARS = 64 * 1024;

// C0 controls but tab and newline, DEL, and the C1 controls (a terminal may read U+009B as CSI).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Where the first control character a prompt may not hold is, or null. Never echoes the text. */
export function controlCharacterIn(text: string): string | null {
  const m = CONTROL.exec(text);
  if (!m) return null;
  const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `must not contain control characters other than newline and tab (U+${code} at index ${m.index})`;
}

/**
 * A prompt: typed as literal text through a bracketed paste. Control characters other than
 * newline and tab are refused: they would reach the agent as keys (Escape interrupts, CR submits
 * early, `ESC[201~` ends the paste), which nobody means by a prompt.
 */
export const PromptText = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_PROMPT_CHARS)
  .superRefine((text, ctx) => {
    const why = controlCharacterIn(text);
    if (why !== null) ctx.addIssue({ code: 'custom', message: why });
  });
