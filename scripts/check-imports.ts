/**
 * Checks the import graph of `src/`: no cycle, and no arrow that runs up the layers (the CLI and
 * the MCP server above the demo tooling, the tooling above the composition root, the root above the server, the fleet and the notifier,
 * those above the service, the service above the operation contracts, the contracts above the
 * core, the core above the base schemas, errors and internals). Type-only imports count as
 * arrows too: they are how a reader follows the code.
 *
 * Usage: tsx scripts/check-imports.ts [root]   (exit 1 when anything is found)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Layers, lowest first: a file may import its own layer or a lower one. */
const LAYERS: Array<{ name: string; match: (path: string) => boolean }> = [
  { name: 'base', match: (p) => p === 'errors.ts' || p.startsWith('internal/') },
  {
    name: 'schemas',
    match: (p) => p.startsWith('schemas/') && !p.startsWith('schemas/operations/'),
  },
  { name: 'contracts', match: (p) => p.startsWith('schemas/operations/') },
  { name: 'service', match: (p) => p.startsWith('service/') },
  {
    name: 'server, fleet, notify',
    match: (p) => p.startsWith('server/') || p.startsWith('fleet/') || p.startsWith('notify/'),
  },
  { name: 'composition root', match: (p) => p === 'serve.ts' || p === 'index.ts' },
  { name: 'tooling', match: (p) => p.startsWith('tooling/') },
  { name: 'cli, mcp', match: (p) => p.startsWith('cli/') || p.startsWith('mcp/') },
];
/** Everything else in `src/` (kernel, observe, profiles, journal, supervisor, …): the core. */
const CORE = { name: 'core', rank: 1.5 };
/** Arrows forbidden although the layers allow them. */
const SIDEWAYS: Array<[string, string]> = [['fleet/', 'server/']];

export interface ImportReport {
  files: number;
  cycles: string[][];
  upward: Array<{ from: string; to: string; why: string }>;
}

function rankOf(path: string): { name: string; rank: number } {
  const i = LAYERS.findIndex((l) => l.match(path));
  if (i < 0) return CORE;
  // The core sits between the base schemas and the contracts.
  return { name: LAYERS[i]!.name, rank: i <= 1 ? i : i + 0.5 };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const SPECIFIER =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The files of `root` each file imports (relative imports only, resolved to `.ts` sources). */
export function importGraph(root: string): Map<string, string[]> {
  const files = walk(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec);
      const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts')];
      const hit = candidates.find((c) => known.has(c));
      if (hit) deps.push(hit);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Every cycle of the graph, once each (Tarjan's strongly connected components). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export function checkImports(root: string): ImportReport {
  const graph = importGraph(root);
  const rel = (f: string) => relative(root, f).split(sep).join('/');
  const upward: ImportReport['upward'] = [];
  for (const [from, deps] of graph) {
    const a = rel(from);
    for (const dep of deps) {
      const b = rel(dep);
      const [ra, rb] = [rankOf(a), rankOf(b)];
      if (rb.rank > ra.rank) upward.push({ from: a, to: b, why: `${ra.name} → ${rb.name}` });
      for (const [x, y] of SIDEWAYS) {
        if (a.startsWith(x) && b.startsWith(y)) upward.push({ from: a, to: b, why: `${x} → ${y}` });
      }
    }
  }
  const cycles = cyclesOf(graph).map((c) => c.map(rel));
  return { files: graph.size, cycles, upward };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '../src'));
  const r = checkImports(root);
  for (const c of r.cycles) console.log(`cycle: ${c.join(' ↔ ')}`);
  for (const u of r.upward) console.log(`upward (${u.why}): ${u.from} → ${u.to}`);
  console.log(`${r.files} files, ${r.cycles.length} cycles, ${r.upward.length} upward arrows`);
  process.exitCode = r.cycles.length + r.upward.length > 0 ? 1 : 0;
}
