import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  afterAll,
  afterEach,
  beforeEach,
  describe,
  expect,
  it,
  vi,
  type MockInstance,
} from 'vitest';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'paneward-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = '{"type":"config","stallTimeoutSeconds":5}';
const UNKNOWN_OBS =
  '{"type":"observation","t":0,"availability":"supported","businessState":"unknown","inputMode":"unknown","uiContext":"normal_prompt","projectionText":"b"}';
const READY_OBS = (t: number) =>
  `{"type":"observation","t":${t},"availability":"supported","businessState":"idle","inputMode":"freeform","uiContext":"normal_prompt","projectionText":"b"}`;

let n = 0;
function scenario(lines: string[]): string {
  const file = join(dir, `s${++n}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

let out: string[];
let err: string[];
let outSpy: MockInstance;
let errSpy: MockInstance;
beforeEach(() => {
  out = [];
  err = [];
  outSpy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  outSpy.mockRestore();
  errSpy.mockRestore();
});

const printed = () =>
  out
    .join('')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('paneward replay --kernel: invalid scenarios', () => {
  it('runs a valid scenario with exit code 0', async () => {
    const file = scenario([CONFIG, UNKNOWN_OBS, '{"type":"advance","t":5}']);
    expect(await main(['replay', '--kernel', file])).toBe(0);
    expect(printed().map((l) => l.to ?? l.anomaly)).toEqual([
      'unknown',
      'stalled',
      'stalled_entered',
    ]);
    expect(err.join('')).toBe('');
  });

  it('invalid JSON: exit 2, names the line; earlier lines are still printed', async () => {
    const file = scenario([
      CONFIG,
      UNKNOWN_OBS,
      '{"type":"advance","t":5}',
      '{"type": "advance", t: 6}',
    ]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 4\b.*not valid JSON/);
    expect(printed().map((l) => l.to ?? l.anomaly)).toEqual([
      'unknown',
      'stalled',
      'stalled_entered',
    ]);
  });

  it('a bad enum value: names the line and the field', async () => {
    const file = scenario([
      CONFIG,
      UNKNOWN_OBS,
      UNKNOWN_OBS.replace('"supported"', '"maybe"').replace('"t":0', '"t":1'),
    ]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 3\b.*availability/);
    expect(printed()).toHaveLength(1);
  });

  it('a missing field: names the line and the field', async () => {
    const file = scenario([
      CONFIG,
      READY_OBS(0),
      READY_OBS(1).replace(',"projectionText":"b"', ''),
    ]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 3\b.*projectionText/);
    expect(printed()).toMatchObject([{ t: 0, to: 'ready' }]);
  });

  it('an unknown line type: names the line and the type field', async () => {
    const file = scenario([CONFIG, '{"type":"submitt","t":0,"baseline":"b"}']);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 2\b.*type/);
  });

  it('time going backwards: names the line and the field t', async () => {
    const file = scenario([CONFIG, READY_OBS(2), '{"type":"advance","t":3}', READY_OBS(2.5)]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 4\b.*`t`/);
    expect(printed()).toMatchObject([{ t: 2, to: 'ready' }]);
  });

  it('a config line that is not first: names the line and the field type', async () => {
    const file = scenario([READY_OBS(0), CONFIG]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 2\b.*`type`/);
    expect(printed()).toMatchObject([{ t: 0, to: 'ready' }]);
  });

  it('line numbers count blank lines', async () => {
    const file = scenario([CONFIG, '', READY_OBS(0), '', 'not json']);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 5\b/);
  });

  it('a bad config value: names the field', async () => {
    const file = scenario(['{"type":"config","stallMode":"sometimes"}', READY_OBS(0)]);
    expect(await main(['replay', '--kernel', file])).toBe(2);
    expect(err.join('')).toMatch(/line 1\b.*stallMode/);
    expect(printed()).toEqual([]);
  });

  it('a missing file: exit 2', async () => {
    expect(await main(['replay', '--kernel', join(dir, 'nope.jsonl')])).toBe(2);
    expect(err.join('')).toMatch(/nope\.jsonl/);
  });
});

describe('paneward replay (recording) with bad input', () => {
  const real = readFileSync('test/fixtures/claude_code/normal-turn.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.trim());

  it('a bad line mid-file: exit 2 naming line and field; the states before it are printed', async () => {
    const file = scenario([
      ...real.slice(0, 20),
      '{"type":"frame","t":"x","text":""}',
      ...real.slice(20),
    ]);
    expect(await main(['replay', file])).toBe(2);
    expect(err.join('')).toMatch(/line 21\b.*`t`/);
    const states = printed() as Array<{ readiness: { status: string } }>;
    expect(states.length).toBeGreaterThan(0);
    expect(states.some((s) => s.readiness.status === 'ready')).toBe(true);
  });

  it('a missing header: names the field', async () => {
    const file = scenario(real.slice(1));
    expect(await main(['replay', file])).toBe(2);
    expect(err.join('')).toMatch(/line 1\b.*`type`/);
    expect(printed()).toEqual([]);
  });

  it('an unknown line type is ignored, as the contract says', async () => {
    const file = scenario([real[0]!, '{"type":"marker","t":0,"note":"x"}', ...real.slice(1)]);
    expect(await main(['replay', file])).toBe(0);
    expect(err.join('')).toBe('');
  });
});
