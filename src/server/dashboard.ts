import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';

/** The package's own folder, from the sources or from `dist/` alike. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The dashboard's files (plain HTML, CSS and JavaScript: nothing to build, nothing fetched). */
const DASHBOARD = join(packageRoot(), 'src', 'dashboard') + sep;
/** The generated diagrams of the charts. */
const DIAGRAMS = join(packageRoot(), 'visualizations') + sep;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Paths that hold no data and are served without the token. */
export function isPublic(path: string): boolean {
  return (
    path === '/' ||
    path === '/healthz' ||
    path === '/openapi.json' ||
    path.startsWith('/dashboard/') ||
    path.startsWith('/diagrams/')
  );
}

/** Serves one file from a folder; the name may not leave it. */
async function serveFrom(folder: string, name: string): Promise<Response | null> {
  const path = normalize(join(folder, name));
  if (!path.startsWith(folder) || !TYPES[extname(path)]) return null;
  try {
    const body = await readFile(path);
    return new Response(body, {
      headers: { 'content-type': TYPES[extname(path)]!, 'cache-control': 'no-cache' },
    });
  } catch {
    return null;
  }
}

/** The dashboard at `/`, its files under `/dashboard/`, the diagrams under `/diagrams/`. */
export function mountDashboard(app: OpenAPIHono): void {
  app.get('/', async (c) => (await serveFrom(DASHBOARD, 'index.html')) ?? c.notFound());
  app.get(
    '/dashboard/:file',
    async (c) => (await serveFrom(DASHBOARD, c.req.param('file'))) ?? c.notFound(),
  );
  app.get(
    '/diagrams/:file',
    async (c) => (await serveFrom(DIAGRAMS, c.req.param('file'))) ?? c.notFound(),
  );
}
