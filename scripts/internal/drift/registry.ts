/** The npm registry, asked through the npm client (`npm view`). */
import { execa } from 'execa';
import type { PackageView } from './platform.js';

/** The registry's answer about `spec`: the view, or null when it has no such package/version. */
export type ViewAnswer = { found: true; view: PackageView } | { found: false; why: string };

/** Reads `npm view <spec> --json` output (or its E404 error object). */
export function parseView(stdout: string, spec: string): ViewAnswer {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return { found: false, why: `npm view ${spec} printed no JSON` };
  }
  // A range matching several versions gives an array: the newest is last.
  if (Array.isArray(data)) data = data[data.length - 1];
  if (typeof data !== 'object' || data === null) {
    return { found: false, why: `npm view ${spec} printed ${JSON.stringify(data)}` };
  }
  const o = data as Record<string, unknown>;
  if (typeof o.error === 'object' && o.error !== null) {
    const e = o.error as { code?: string; summary?: string };
    return { found: false, why: `${e.code ?? 'error'}: ${e.summary ?? 'no summary'}` };
  }
  if (typeof o.name !== 'string' || typeof o.version !== 'string') {
    return { found: false, why: `npm view ${spec}: no name or version in its answer` };
  }
  return { found: true, view: o as unknown as PackageView };
}

/** The fields read (asking for them keeps npm from printing every version's publish time). */
const FIELDS = ['name', 'version', 'os', 'cpu', 'optionalDependencies'];

/** `npm view <spec> <fields> --json`, once more after a timeout (a loaded machine, a slow mirror). */
export async function npmView(spec: string, timeoutMs = 120_000): Promise<ViewAnswer> {
  let why = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const r = await execa('npm', ['view', spec, ...FIELDS, '--json'], {
      reject: false,
      timeout: timeoutMs,
      env: { NO_UPDATE_NOTIFIER: '1' },
    });
    if (!r.timedOut) return parseView(r.stdout, spec);
    why = `npm view ${spec} took over ${timeoutMs / 1000}s, twice`;
  }
  return { found: false, why };
}

/** `f` over `items`, at most `limit` at a time, results in order. */
export async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  f: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
