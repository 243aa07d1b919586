import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { matchTree, type TreeProcess } from '../../src/observe/process.js';
import { knownTools, PROFILES } from '../../src/profiles/index.js';

const DIR = fileURLToPath(new URL('../fixtures/process-trees/', import.meta.url));

interface RecordedProcess {
  depth: number;
  comm: string;
  argv: string[];
}

/** A recorded tree (test/e2e/record/process-trees.ts) as the matcher reads one. */
function treeOf(tool: string): TreeProcess[] {
  const recorded = JSON.parse(readFileSync(`${DIR}${tool}.json`, 'utf8')) as RecordedProcess[];
  const parents: number[] = [];
  return recorded.map((p, i) => {
    const pid = 1000 + i;
    parents[p.depth] = pid;
    return { pid, ppid: p.depth === 0 ? 1 : parents[p.depth - 1]!, comm: p.comm, argv: p.argv };
  });
}

const recorded = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

describe('discovery on the real process trees of the agent CLIs', () => {
  it('has a recorded tree for every shipped CLI profile', () => {
    const shipped = Object.keys(PROFILES).filter((id) => id !== 'unsupported');
    expect(recorded).toEqual([...shipped].sort());
  });

  it.each(recorded)('finds %s, and no other tool, in its pane', (tool) => {
    const tree = treeOf(tool);
    const matching = knownTools().filter((t) => matchTree(tree, t.processNames).length > 0);
    expect(matching.map((t) => t.id)).toEqual([tool]);
    // The pane's own process (or the first under it) is the agent: what discovery attaches.
    const pids = matchTree(tree, matching[0]!.processNames);
    expect(pids[0]).toBe(tree[0]!.pid);
  });
});
