import type { z } from 'zod';

/** One readable sentence per zod issue, each naming the field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : '(line)';
      return `field \`${field}\`: ${issue.message}`;
    })
    .join('; ');
}
