/**
 * Checks the import graph of `src/` and `machines/`: no cycle, no file on no floor, and no
 * arrow that runs up the floors: base (errors, internals) ← schemas ← machines (the charts) ←
 * kernel (their drivers) ← readers (profiles, observe, journal, session records, hooks,
 * inspector) ← terminal ← supervisor (and the replay) ← operation contracts ← service ←
 * server, fleet, notifier ← composition root ← tooling ← CLI and MCP server. Type-only imports
 * count as arrows too: they are how a reader follows the code.
 *
 * Usage: tsx scripts/check-imports.ts [root]   (exit 1 when anything is found)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Floors, lowest first: a file may import its own floor or a lower one. `machines/` (beside
 * `src/`, read as `../machines/…`) is the charts: XState and nothing of paneward's above the
 * schemas. A file on no floor is reported, so a new folder is placed on purpose.
 */
const LAYERS: Array<{ name: string; match: (path: string) => boolean }> = [
  { name: 'base', match: (p) => p === 'errors.ts' || p.startsWith('internal/') },
  {
    name: 'schemas',
    match: (p) => p.startsWith('schemas/') && !p.startsWith('schemas/operations/'),
  },
  { name: 'machines', match: (p) => p.startsWith('../machines/') },
  { name: 'kernel', match: (p) => p.startsWith('kernel/') },
  {
    name: 'readers',
    match: (p) =>
      ['profiles/', 'observe/', 'journal/', 'sessions/', 'hooks/', 'inspect/'].some((d) =>
        p.startsWith(d),
      ),
  },
  { name: 'terminal', match: (p) => p.startsWith('terminal/') },
  {
    name: 'supervisor',
    match: (p) => p.startsWith('supervisor/') || p.startsWith('replay/'),
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
/** Arrows forbidden although the floors allow them. */
const SIDEWAYS: Array<[string, string]> = [['fleet/', 'server/']];

export interface ImportReport {
  files: number;
  cycles: string[][];
  upward: Array<{ from: string; to: string; why: string }>;
  /** Files on no floor. */
  unplaced: string[];
}

function rankOf(path: string): { name: string; rank: number } | null {
  const i = LAYERS.findIndex((l) => l.match(path));
  return i < 0 ? null : { name: LAYERS[i]!.name, rank: i };
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
export function importGraph(roots: string | readonly string[]): Map<string, string[]> {
  const files = (typeof roots === 'string' ? [roots] : roots).flatMap((r) => walk(r));
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
  // The charts beside the sources, when there are any (a test's tree may have none).
  const machines = join(root, '../machines');
  const roots = existsSync(machines) ? [root, machines] : [root];
  const graph = importGraph(roots);
  const rel = (f: string) => relative(root, f).split(sep).join('/');
  const upward: ImportReport['upward'] = [];
  const unplaced = new Set<string>();
  for (const [from, deps] of graph) {
    const a = rel(from);
    const ra = rankOf(a);
    if (ra === null) unplaced.add(a);
    for (const dep of deps) {
      const b = rel(dep);
      const rb = rankOf(b);
      if (ra && rb && rb.rank > ra.rank)
        upward.push({ from: a, to: b, why: `${ra.name} → ${rb.name}` });
      for (const [x, y] of SIDEWAYS) {
        if (a.startsWith(x) && b.startsWith(y)) upward.push({ from: a, to: b, why: `${x} → ${y}` });
      }
    }
  }
  const cycles = cyclesOf(graph).map((c) => c.map(rel));
  return { files: graph.size, cycles, upward, unplaced: [...unplaced].sort() };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '../src'));
  const r = checkImports(root);
  for (const c of r.cycles) console.log(`cycle: ${c.join(' ↔ ')}`);
  for (const u of r.upward) console.log(`upward (${u.why}): ${u.from} → ${u.to}`);
  for (const f of r.unplaced) console.log(`on no floor: ${f}`);
  console.log(
    `${r.files} files, ${r.cycles.length} cycles, ${r.upward.length} upward arrows, ${r.unplaced.length} on no floor`,
  );
  process.exitCode = r.cycles.length + r.upward.length + r.unplaced.length > 0 ? 1 : 0;
}
