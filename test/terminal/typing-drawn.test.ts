import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TmuxArg } from '../../src/observe/tmux-argv.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import { PaneTyping } from '../../src/terminal/typing.js';

/**
 * When a submit presses Enter after its paste: once the pane shows the pasted text, holding
 * still; while the pane is exactly as before the paste, the CLI has not read it yet, and the
 * Enter waits (an Enter read together with the paste goes into the draft).
 */
const BEFORE = '╭───╮\n│ ❯ Ask me anything... │\n╰───╯';
const DRAWN = '╭───╮\n│ ❯ create approved.txt │\n╰───╯';
const SUMMARY = '╭───╮\n│ ❯ [Pasted text #1 +20 lines] │\n╰───╯';

/** A pane that shows `screens[i]` from `at[i]` ms on (virtual time); counts the captures. */
function pane(timeline: ReadonlyArray<readonly [at: number, screen: string]>) {
  const start = Date.now();
  const transport: TmuxTransport & { captures: number } = {
    captures: 0,
    async run(args: readonly TmuxArg[]) {
      expect(args[0]).toBe('capture-pane');
      transport.captures++;
      const now = Date.now() - start;
      return timeline.filter(([at]) => at <= now).at(-1)![1];
    },
    close: async () => {},
  };
  return { typing: new PaneTyping(transport, '%1'), transport };
}

/** Runs `untilDrawn` on virtual time; returns its answer and how long it took. */
async function drawn(p: PaneTyping, text: string, before?: string) {
  const start = Date.now();
  const result = p.untilDrawn(text, before);
  let done = false;
  void result.then(() => (done = true));
  while (!done) await vi.advanceTimersByTimeAsync(10);
  return { screen: await result, ms: Date.now() - start };
}

describe('PaneTyping.untilDrawn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const TEXT = 'create approved.txt';
  const LONG = 'line\n'.repeat(20) + 'the end of a long prompt';
  it.each([
    {
      what: 'the text drawn, then still for one look: that screen',
      pane: [
        [0, BEFORE],
        [200, DRAWN],
      ] as const,
      text: TEXT,
      before: BEFORE,
      screen: DRAWN,
      ms: [200, 400],
    },
    {
      what: 'the pane exactly as before the paste: waited for past the first second',
      pane: [
        [0, BEFORE],
        [4000, DRAWN],
      ] as const,
      text: TEXT,
      before: BEFORE,
      screen: DRAWN,
      ms: [4000, 4300],
    },
    {
      what: 'no screen from before the paste: given up after the first second, as before',
      pane: [
        [0, BEFORE],
        [4000, DRAWN],
      ] as const,
      text: TEXT,
      before: undefined,
      screen: null,
      ms: [1000, 1200],
    },
    {
      what: 'a pane that changed without the text (a long paste as a summary): not waited for',
      pane: [
        [0, BEFORE],
        [100, SUMMARY],
      ] as const,
      text: LONG,
      before: BEFORE,
      screen: null,
      ms: [1000, 1200],
    },
  ])('$what', async ({ pane: timeline, text, before, screen, ms: [min, max] }) => {
    const r = await drawn(pane(timeline).typing, text, before);
    expect(r.screen).toBe(screen);
    expect(r.ms).toBeGreaterThanOrEqual(min!);
    expect(r.ms).toBeLessThan(max!);
  });

  it('the text drawn, gone, and drawn again: it must hold still again before Enter', async () => {
    const { typing } = pane([
      [0, BEFORE],
      [100, DRAWN],
      [140, BEFORE],
      [300, DRAWN],
    ]);
    const r = await drawn(typing, 'create approved.txt', BEFORE);
    expect(r.screen).toBe(DRAWN);
    // Seen again at the look after 300 ms, and still at the one after that.
    expect(r.ms).toBeGreaterThanOrEqual(350);
  });

  it('a capture that fails ends the wait with what was seen', async () => {
    const { typing, transport } = pane([
      [0, BEFORE],
      [20, DRAWN],
    ]);
    const run = transport.run.bind(transport);
    transport.run = async (args) => {
      if (transport.captures === 2) throw new Error('tmux went away');
      return run(args);
    };
    // The second look saw the text; the third fails.
    expect((await drawn(typing, 'create approved.txt', BEFORE)).screen).toBe(DRAWN);
    const { typing: none, transport: t2 } = pane([[0, BEFORE]]);
    t2.run = async () => {
      throw new Error('tmux went away');
    };
    expect((await drawn(none, 'create approved.txt', BEFORE)).screen).toBeNull();
  });

  it('a pane that never changes is waited for at most eleven seconds', async () => {
    const { typing, transport } = pane([[0, BEFORE]]);
    const r = await drawn(typing, 'create approved.txt', BEFORE);
    expect(r.screen).toBeNull();
    expect(r.ms).toBeGreaterThanOrEqual(11_000);
    expect(r.ms).toBeLessThan(11_200);
    // It looked every 40 ms, no faster.
    expect(transport.captures).toBeLessThanOrEqual(11_000 / 40 + 2);
  });

  it('the text drawn but never still: the last screen with it once the wait is over', async () => {
    const frames: Array<[number, string]> = [[0, BEFORE]];
    for (let t = 50; t < 3000; t += 40) frames.push([t, `${DRAWN}\n${t}`]);
    const { typing } = pane(frames);
    const r = await drawn(typing, 'create approved.txt', BEFORE);
    expect(r.screen).toMatch(/create approved\.txt/);
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(r.ms).toBeLessThan(1200);
  });
});
