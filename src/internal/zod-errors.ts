import type { z } from 'zod';

/** One readable sentence per zod issue, each naming the field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.map(String);
      // An unknown key is named as the field it is.
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `field \`${[...at, k].join('.')}\`: unknown field`).join('; ');
      }
      const field = at.length > 0 ? at.join('.') : '(line)';
      return `field \`${field}\`: ${issue.message}`;
    })
    .join('; ');
}
