import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ControlParser,
  commandLine,
  parseNotification,
  quoteArg,
  type ControlNotification,
  type ControlReply,
} from '../../src/observe/control-protocol.js';

// Real `tmux -C` output recorded by fixtures/control-mode/record.ts (tmux 3.3a); the .json
// beside each file lists what was done and the ids involved.
const FIXTURES = join(import.meta.dirname, 'fixtures', 'control-mode');
const bytes = (name: string) => readFileSync(join(FIXTURES, `${name}.out`));

interface Parsed {
  replies: ControlReply[];
  notes: ControlNotification[];
  /** Replies and notifications in arrival order, output reduced to its pane. */
  order: string[];
}

function parse(chunks: Iterable<Buffer>): Parsed {
  const out: Parsed = { replies: [], notes: [], order: [] };
  const parser = new ControlParser({
    reply: (r) => {
      out.replies.push(r);
      out.order.push(`reply ${r.number} ${r.ok ? 'ok' : 'error'}`);
    },
    notification: (n) => {
      out.notes.push(n);
      out.order.push(n.type === 'output' ? `output ${n.paneId}` : JSON.stringify(n));
    },
  });
  for (const c of chunks) parser.push(c);
  return out;
}

/** Splits `buf` into chunks of pseudo-random sizes (1 to `max` bytes), reproducibly. */
function* randomChunks(buf: Buffer, max: number, seed: number): Generator<Buffer> {
  let s = seed;
  for (let at = 0; at < buf.length;) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const size = 1 + (s % max);
    yield buf.subarray(at, at + size);
    at += size;
  }
}

describe('ControlParser on recorded tmux output', () => {
  const basic = parse([bytes('basic')]);

  it('answers each command line with one reply, in order, bodies intact', () => {
    const r = basic.replies;
    // The attach command the client was started with is not one of ours.
    expect(r[0]).toMatchObject({ fromClient: false, ok: true, body: '' });
    const ours = r.filter((x) => x.fromClient);
    expect(ours.map((x) => x.ok)).toEqual([true, true, true, false, false, true, true]);
    expect(ours[0]!.body).toBe(''); // refresh-client -f pause-after=1
    expect(ours[1]!.body).toBe('%0 @0 60x8'); // display-message
    const screen = ours[2]!.body.split('\n');
    expect(screen).toHaveLength(8);
    expect(screen.slice(1, 4)).toEqual(['alpha', 'beta', 'gamma  delta']);
    expect(ours[3]!.body).toBe("can't find pane: %999");
    expect(ours[4]!.body).toBe('parse error: unknown command: no-such-command');
    // Command numbers increase; every reply closed on its own number.
    const numbers = r.map((x) => x.number);
    expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(r.every((x) => x.time > 1.6e9)).toBe(true);
  });

  it('puts the %pause/%continue a refresh-client -A command causes in that reply', () => {
    const ours = basic.replies.filter((x) => x.fromClient);
    expect(ours[5]!.body).toBe('%pause %0');
    expect(ours[6]!.body).toBe('%continue %0');
    expect(basic.notes.some((n) => n.type === 'pause')).toBe(false);
  });

  it('reports output of the attached session only, and the lifecycle notifications', () => {
    const steps = JSON.parse(readFileSync(join(FIXTURES, 'basic.json'), 'utf8')) as Array<{
      what: string;
      pane?: string;
      window?: string;
    }>;
    const otherSession = steps.find((s) => s.what.startsWith('another session'))!;
    const outputPanes = new Set(
      basic.notes.flatMap((n) => (n.type === 'output' ? [n.paneId] : [])),
    );
    expect(outputPanes.has('%0')).toBe(true);
    expect(outputPanes.has(otherSession.pane!)).toBe(false);
    const lifecycle = basic.notes.filter((n) => n.type !== 'output' && n.type !== 'other');
    expect(lifecycle).toEqual([
      { type: 'session-changed', sessionId: '$0', name: 'main' },
      { type: 'pane-mode-changed', paneId: '%0' },
      { type: 'pane-mode-changed', paneId: '%0' },
      { type: 'layout-change', windowId: '@0' },
      { type: 'layout-change', windowId: '@0' },
      { type: 'window-add', windowId: '@1' },
      // A window killed in the attached session is reported as unlinked: it has left it first.
      { type: 'unlinked-window-close', windowId: '@1' },
      { type: 'unlinked-window-add', windowId: otherSession.window },
      { type: 'sessions-changed' },
      { type: 'sessions-changed' },
      { type: 'unlinked-window-close', windowId: otherSession.window },
      { type: 'session-renamed', sessionId: '$0', name: 'main two' },
      { type: 'exit', reason: null },
    ]);
  });

  it('reports a paused pane, skips flood data, and still reads the reply after it', () => {
    const flood = parse([bytes('flood')]);
    expect(flood.notes).toContainEqual({ type: 'pause', paneId: '%0' });
    const outputBytes = flood.notes.reduce(
      (sum, n) => sum + (n.type === 'output' && n.paneId === '%0' ? n.bytes : 0),
      0,
    );
    // Every byte of the flood's output lines was counted, none of them became a reply or note.
    const floodLines = bytes('flood')
      .toString('latin1')
      .split('\n')
      .filter((l) => l.startsWith('%extended-output %0 ') || l.startsWith('%output %0 '));
    expect(floodLines.length).toBeGreaterThan(10);
    expect(outputBytes).toBe(floodLines.reduce((s, l) => s + l.length, 0));
    const quiet = flood.replies.filter((r) => r.fromClient)[1]!;
    expect(quiet.ok).toBe(true);
    expect(quiet.body.split('\n')[0]).toBe('bash-5.2#');
    expect(flood.notes.at(-1)).toEqual({ type: 'exit', reason: null });
  });

  it('gives the same events however the stream is cut', () => {
    for (const name of ['basic', 'flood', 'server-exit']) {
      const whole = parse([bytes(name)]);
      for (const [max, seed] of [
        [1, 1],
        [7, 2],
        [300, 3],
        [65536, 4],
      ] as const) {
        const cut = parse(randomChunks(bytes(name), max, seed));
        expect(cut.order, `${name} in chunks of at most ${max}`).toEqual(whole.order);
        expect(cut.replies).toEqual(whole.replies);
      }
    }
  });

  it('sees the server go away', () => {
    const p = parse([bytes('server-exit')]);
    expect(p.replies.filter((r) => r.fromClient).map((r) => r.body)).toEqual(['before']);
    expect(p.notes.slice(-2)).toEqual([
      { type: 'sessions-changed' },
      { type: 'exit', reason: null },
    ]);
  });
});

describe('ControlParser edge cases', () => {
  it('does not close a block on a screen line that only looks like a guard', () => {
    const p = parse([
      Buffer.from(
        '%begin 1700000000 41 1\n%end 1700000000 40 1\n%error 1700000000 41 0\n%output %3 x\n%end 1700000000 41 1\n',
      ),
    ]);
    expect(p.replies).toEqual([
      {
        number: 41,
        time: 1700000000,
        fromClient: true,
        ok: true,
        body: '%end 1700000000 40 1\n%error 1700000000 41 0\n%output %3 x',
        seq: 1,
      },
    ]);
    expect(p.notes).toEqual([]);
  });

  it('decodes UTF-8 split across chunks in a reply body', () => {
    const all = Buffer.from('%begin 1 2 1\nline ✻ – ok\n%end 1 2 1\n');
    const star = all.indexOf(Buffer.from('✻'));
    const p = parse([all.subarray(0, star + 1), all.subarray(star + 1)]);
    expect(p.replies[0]!.body).toBe('line ✻ – ok');
  });

  it('reads the exit reason and ids with names holding spaces', () => {
    expect(parseNotification('%exit server exited unexpectedly')).toEqual({
      type: 'exit',
      reason: 'server exited unexpectedly',
    });
    expect(parseNotification('%session-changed $12 my agents')).toEqual({
      type: 'session-changed',
      sessionId: '$12',
      name: 'my agents',
    });
    expect(parseNotification('%window-pane-changed @3 %9')).toEqual({
      type: 'window-pane-changed',
      windowId: '@3',
      paneId: '%9',
    });
    expect(parseNotification('%window-close 3')).toMatchObject({
      type: 'other',
      name: 'window-close',
    });
    expect(parseNotification('%client-detached client-1')).toMatchObject({
      type: 'other',
      name: 'client-detached',
    });
  });
});

describe('command lines', () => {
  it('quotes every argument so the parser takes it literally', () => {
    expect(quoteArg('%3:continue')).toBe("'%3:continue'");
    expect(quoteArg("it's $HOME #{x} ; ~")).toBe(`'it'"'"'s $HOME #{x} ; ~'`);
    expect(commandLine('capture-pane', ['-p', '-t', 'a b:0.1'])).toBe(
      "capture-pane '-p' '-t' 'a b:0.1'",
    );
    expect(() => quoteArg('two\nlines')).toThrow(/line break/);
  });
});
