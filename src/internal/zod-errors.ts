import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/**
 * Of a union's branches, the one the input went furthest into (the deepest field named): a body
 * that is one of two shapes is told what is wrong with the shape it meant.
 */
function likeliest(branches: Issue[][]): Issue[] {
  const depth = (issues: Issue[]) =>
    Math.max(...issues.map((i) => i.path.length + (i.code === 'unrecognized_keys' ? 1 : 0)));
  // On a tie, the first branch: list the likelier shape first.
  return branches.reduce((best, b) => (depth(b) > depth(best) ? b : best));
}

function describeIssue(issue: Issue, base: PropertyKey[]): string {
  const at = [...base, ...issue.path].map(String);
  // An unknown key is named as the field it is.
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `field \`${[...at, k].join('.')}\`: unknown field`).join('; ');
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    return likeliest(issue.errors)
      .map((i) => describeIssue(i, [...base, ...issue.path]))
      .join('; ');
  }
  const field = at.length > 0 ? at.join('.') : '(line)';
  // A record's key: what is wrong with the name itself.
  if (issue.code === 'invalid_key') {
    return `field \`${field}\`: the name ${issue.issues.map((i) => i.message).join('; ')}`;
  }
  return `field \`${field}\`: ${issue.message}`;
}

/** One readable sentence per zod issue, each naming the field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => describeIssue(issue, [])).join('; ');
}
