import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports } from '../../scripts/check-imports.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

describe('the import graph of src/', () => {
  it('has no arrow up the layers and no cycle', () => {
    const r = checkImports(SRC);
    expect(r.files).toBeGreaterThan(100);
    expect(r.upward).toEqual([]);
    expect(r.cycles).toEqual([]);
    expect(r.unplaced).toEqual([]);
  });

  describe('the checker', () => {
    const root = mkdtempSync(join(tmpdir(), 'paneward-imports-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };

    it('finds a cycle, an arrow up, and the fleet reaching into the server', () => {
      write('fleet/view.ts', "import { app } from '../server/app.js';\nexport const view = 1;\n");
      write(
        'server/app.ts',
        "import type { view } from '../fleet/view.js';\nexport const app = 2;\n",
      );
      write('schemas/record.ts', "export { run } from '../cli/main.js';\n");
      write('cli/main.ts', "export const run = () => import('../tooling/demo.js');\n");
      write('tooling/demo.ts', "import { x } from 'zod';\nexport const demo = 3;\n");
      const r = checkImports(root);
      expect(r.cycles).toEqual([['fleet/view.ts', 'server/app.ts']]);
      expect(r.upward).toEqual(
        expect.arrayContaining([
          { from: 'fleet/view.ts', to: 'server/app.ts', why: 'fleet/ → server/' },
          { from: 'schemas/record.ts', to: 'cli/main.ts', why: 'schemas → cli, mcp' },
        ]),
      );
      expect(r.upward).toHaveLength(2);
      expect(r.unplaced).toEqual([]);
    });

    it('reads the charts beside the sources, and knows the floors of the core', () => {
      const tree = mkdtempSync(join(tmpdir(), 'paneward-floors-'));
      try {
        const put = (path: string, text: string) => {
          mkdirSync(dirname(join(tree, path)), { recursive: true });
          writeFileSync(join(tree, path), text);
        };
        put(
          'machines/readiness.ts',
          "import { k } from '../src/kernel/driver.js';\nexport const m = 1;\n",
        );
        put(
          'src/kernel/driver.ts',
          "import { m } from '../../machines/readiness.js';\nexport const k = m;\n",
        );
        put(
          'src/terminal/commands.ts',
          "import { gate } from '../supervisor/gate.js';\nexport const c = gate;\n",
        );
        put(
          'src/supervisor/gate.ts',
          "import { c } from '../terminal/pipe.js';\nexport const gate = c;\n",
        );
        put(
          'src/terminal/pipe.ts',
          "import { p } from '../profiles/x/read.js';\nexport const c = p;\n",
        );
        put(
          'src/profiles/x/read.ts',
          "import { k } from '../../kernel/driver.js';\nexport const p = k;\n",
        );
        put('src/nowhere/thing.ts', 'export const t = 1;\n');
        const r = checkImports(join(tree, 'src'));
        expect(r.upward).toHaveLength(2);
        expect(r.upward).toEqual(
          expect.arrayContaining([
            { from: '../machines/readiness.ts', to: 'kernel/driver.ts', why: 'machines → kernel' },
            {
              from: 'terminal/commands.ts',
              to: 'supervisor/gate.ts',
              why: 'terminal → supervisor',
            },
          ]),
        );
        expect(r.cycles).toEqual([['../machines/readiness.ts', 'kernel/driver.ts']]);
        expect(r.unplaced).toEqual(['nowhere/thing.ts']);
      } finally {
        rmSync(tree, { recursive: true, force: true });
      }
    });
  });
});
