import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/client-api.js';
import { readToken } from '../../src/cli/serve-secrets.js';
import { MAX_TOKEN_FILE_BYTES, readTokenFile } from '../../src/internal/token-file.js';

const dir = mkdtempSync(join(tmpdir(), 'pw-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'a-token-of-at-least-sixteen-characters';

/** How long `f` took, in ms, and what it threw. */
function timed(f: () => unknown): { ms: number; error: string } {
  const t0 = Date.now();
  try {
    f();
    return { ms: Date.now() - t0, error: '' };
  } catch (error) {
    return { ms: Date.now() - t0, error: (error as Error).message };
  }
}

describe('token files (serve --token-file, the client, the hook)', () => {
  it('a regular file, and a symbolic link to one, give their token trimmed', () => {
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const link = join(dir, 'token-link');
    symlinkSync(file, link);
    expect(readTokenFile(file, 'field `tokenFile`')).toBe(TOKEN);
    expect(readTokenFile(link, 'field `tokenFile`')).toBe(TOKEN);
    expect(readToken(link)).toBe(TOKEN);
  });

  it('a FIFO with no writer is refused at once, naming the field and the file', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = timed(() => readToken(fifo));
    expect(r.ms).toBeLessThan(500);
    expect(r.error).toBe(
      `field \`tokenFile\`: ${fifo} is a FIFO; the token must be in a regular file`,
    );
    // The client alike.
    const c = timed(() => new ApiClient({ tokenFile: fifo }, {}));
    expect(c.ms).toBeLessThan(500);
    expect(c.error).toMatch(/field `tokenFile`: .* is a FIFO/);
  });

  it('/dev/zero is refused (a character device), not read without end', () => {
    const r = timed(() => readToken('/dev/zero'));
    expect(r.ms).toBeLessThan(500);
    expect(r.error).toBe(
      'field `tokenFile`: /dev/zero is a character device; the token must be in a regular file',
    );
  });

  it('a file over the cap, a directory and a missing file are refused, naming them', () => {
    const big = join(dir, 'big');
    writeFileSync(big, 'x'.repeat(MAX_TOKEN_FILE_BYTES + 1));
    expect(timed(() => readToken(big)).error).toBe(
      `field \`tokenFile\`: ${big} has ${MAX_TOKEN_FILE_BYTES + 1} bytes; a token file holds at most ${MAX_TOKEN_FILE_BYTES}`,
    );
    // Right at the cap is fine.
    const full = join(dir, 'full');
    writeFileSync(full, `${'y'.repeat(MAX_TOKEN_FILE_BYTES - 1)}\n`);
    expect(readToken(full)).toBe('y'.repeat(MAX_TOKEN_FILE_BYTES - 1));
    expect(timed(() => readToken(dir)).error).toBe(
      `field \`tokenFile\`: ${dir} is a directory; the token must be in a regular file`,
    );
    expect(timed(() => readToken(join(dir, 'none'))).error).toBe(
      `field \`tokenFile\`: cannot read ${join(dir, 'none')} (ENOENT)`,
    );
  });
});
