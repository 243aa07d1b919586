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

/** `npm view <spec> --json`. */
export async function npmView(spec: string, timeoutMs = 90_000): Promise<ViewAnswer> {
  const r = await execa('npm', ['view', spec, '--json'], {
    reject: false,
    timeout: timeoutMs,
    env: { NO_UPDATE_NOTIFIER: '1' },
  });
  if (r.timedOut) return { found: false, why: `npm view ${spec} took over ${timeoutMs / 1000}s` };
  return parseView(r.stdout, spec);
}
