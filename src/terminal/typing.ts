import { randomUUID } from 'node:crypto';
import { PanewardError, isPanewardError } from '../errors.js';
import type { TmuxTransport } from '../observe/transport.js';
import { stripEscapes } from '../profiles/internal/highlight.js';
import type { ToolProfile } from '../profiles/types.js';

/** How long a submit waits for the pasted text to be drawn, and how often it looks. */
const DRAW_WAIT_MS = 1000;
const DRAW_POLL_MS = 40;
/**
 * How long it waits beyond that while the pane is exactly as before the paste: the CLI has not
 * read it yet (its event loop busy), and an Enter sent now would arrive in the same read.
 */
const UNREAD_WAIT_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * What paneward types into one pane, as tmux commands: keys, a prompt's paste through a buffer
 * of its own, and reading the pane back. Every call ends when the terminal's runtime stops.
 */
export class PaneTyping {
  private readonly abortController = new AbortController();

  constructor(
    private readonly transport: TmuxTransport,
    private readonly target: string,
  ) {}

  abort(): void {
    this.abortController.abort();
  }

  /** Presses `keys` in the pane (`send-keys`). */
  keys(keys: readonly string[]): Promise<void> {
    return this.tmux(['send-keys', '-t', this.target, ...keys]).then(() => {});
  }

  /** Types `text` literally (`send-keys -l`): a CLI's own short command, never a prompt. */
  literal(text: string): Promise<void> {
    return this.tmux(['send-keys', '-t', this.target, '-l', '--', text]).then(() => {});
  }

  /**
   * Loads `text` into a buffer of its own (loaded from stdin, so any length arrives whole and
   * nothing in it is read as a tmux command or key); types nothing. Returns the buffer's name.
   */
  async load(text: string): Promise<string> {
    // A buffer of its own: no other client or supervisor pastes it, nor overwrites it.
    const buffer = `paneward-${randomUUID()}`;
    await this.tmux(['load-buffer', '-b', buffer, '-'], text);
    return buffer;
  }

  /** Pastes a loaded buffer (with the paste brackets when the agent asked for them) and deletes it. */
  async paste(buffer: string): Promise<void> {
    await this.tmux(['paste-buffer', '-p', '-r', '-d', '-b', buffer, '-t', this.target]);
  }

  /** Deletes a buffer whose paste failed (best effort): the prompt's text does not stay in tmux. */
  discard(buffer: string): void {
    void this.tmux(['delete-buffer', '-b', buffer]).catch(() => undefined);
  }

  /** The pane as drawn now, without trailing blanks. */
  async capture(): Promise<string> {
    return normalise(await this.tmux(['capture-pane', '-p', '-t', this.target]));
  }

  /**
   * The pane as drawn now with its colours and attributes (`capture-pane -p -e`): `ansi` as
   * tmux prints it, `text` the same capture with the escapes taken out. Only an answer to a
   * dialog whose highlight is drawn by colour alone asks for it; every poll reads plain text.
   */
  async captureWithEscapes(): Promise<{ text: string; ansi: string }> {
    const ansi = await this.tmux(['capture-pane', '-p', '-e', '-t', this.target]);
    return { text: normalise(stripEscapes(ansi)), ansi };
  }

  /**
   * Waits (at most {@link DRAW_WAIT_MS}) until the pane shows the end of `text` and then holds
   * still for one look (a CLI may still be drawing around the text, e.g. its cursor); returns
   * that screen, or null when the text never showed (the submit then goes on without it).
   *
   * `before` is the pane as captured before the paste. While the pane is still exactly that,
   * the CLI has not read the paste: the wait goes on (at most {@link UNREAD_WAIT_MS} more) until
   * the pane changes, so that keys sent next are not read together with the paste (grok-cli
   * then takes an Enter into the draft). A CLI that draws a long paste as a summary
   * (`[Pasted text #1 +20 lines]`) has changed the pane, and is not waited for.
   */
  async untilDrawn(text: string, before?: string): Promise<string | null> {
    const needle = tail(text);
    if (needle === '') return null;
    const start = Date.now();
    let shown: string | null = null;
    for (;;) {
      let screen: string;
      try {
        screen = await this.capture();
      } catch {
        return shown;
      }
      if (squeeze(screen).includes(needle)) {
        if (screen === shown) return screen;
        shown = screen;
      } else {
        shown = null;
      }
      const unread = screen === before;
      if (Date.now() - start >= DRAW_WAIT_MS + (unread ? UNREAD_WAIT_MS : 0)) return shown;
      await sleep(DRAW_POLL_MS);
    }
  }

  private tmux(args: string[], input?: string): Promise<string> {
    return this.transport.run(args, {
      signal: this.abortController.signal,
      ...(input === undefined ? {} : { input }),
    });
  }
}

export { sleep };

/** Text without any whitespace: how a box wraps or pads a line does not matter. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}

/** The last (at most 12) non-blank characters of a prompt: what is drawn last. */
function tail(text: string): string {
  return squeeze(text).slice(-12);
}

/** A capture without trailing blanks on each line or blank lines at the end. */
function normalise(screen: string): string {
  return screen
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd();
}

/**
 * A paste or submit that failed after its turn was recorded: a timeout may still type when
 * tmux answers again, so it says so and names the turn; the turn's id rides along either way.
 */
export function typingError(error: unknown, turnId: string): PanewardError {
  const e = commandError(error);
  if (e.code === 'tmux_timeout') {
    return new PanewardError(
      'tmux_timeout',
      `tmux did not answer in time: the prompt may have been typed; it is recorded as ${turnId}`,
      { cause: error, details: { turnId, mayHaveBeenTyped: true } },
    );
  }
  return new PanewardError(e.code, `${e.message} (recorded as ${turnId}, not typed)`, {
    cause: error,
    details: { turnId, mayHaveBeenTyped: false },
  });
}

/** Turns a command's error into a PanewardError. */
export function commandError(error: unknown): PanewardError {
  if (isPanewardError(error)) return error;
  return new PanewardError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

/**
 * Presses a profile's interrupt keys as often as the CLI needs (opencode, Kilo and Copilot CLI
 * interrupt on the second Escape), each press its own send so the keys are not read as one
 * chord, `interruptKeyGapMs` apart.
 */
export async function pressInterrupt(
  profile: Pick<ToolProfile, 'interruptKeys' | 'interruptPresses' | 'interruptKeyGapMs'>,
  send: (keys: readonly string[]) => Promise<unknown>,
): Promise<void> {
  const presses = Math.max(1, profile.interruptPresses ?? 1);
  for (let i = 0; i < presses; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, profile.interruptKeyGapMs ?? 200));
    await send(profile.interruptKeys);
  }
}
