import type { RecordReply } from '../profiles/session-record.js';
import { MAX_REPLY_BYTES, type TurnPayload } from '../schemas/turn-payload.js';
import { replyFromScreen } from './screen-reply.js';
import type { TurnLifecycle } from './turn-driver.js';

/** Text cut to at most `max` UTF-8 bytes, on a character boundary. */
export function capBytes(text: string, max = MAX_REPLY_BYTES): { text: string; cut: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= max) return { text, cut: false };
  let cut = Buffer.from(text, 'utf8').subarray(0, max).toString('utf8');
  // A character split by the cut decodes as U+FFFD: leave it out.
  while (cut.length > 0 && !text.startsWith(cut)) cut = cut.slice(0, -1);
  return { text: cut, cut: true };
}

/** The turn being built: what is known of it from its start. */
interface OpenTurn {
  turnId: string;
  source: TurnPayload['source'];
  startedAt: number;
  prompt: string | null;
  /** The transcript as it stood before the turn (the projection while no turn ran). */
  baseline: string;
}

/**
 * Builds each turn's payload (docs/contracts.md §6) beside the pipeline: the prompt paneward
 * typed, the transcript before the turn, the reply text the session record tells (when it is
 * read with replies), and at the turn's end the outcome, its evidence and the projection of the
 * screen. Hands each payload on as it changes (started, ended, a record's reply that came
 * after the screen ended it); keeps nothing but the turn open and the last one ended.
 */
export class TurnPayloads {
  private open: OpenTurn | null = null;
  /** The projection last seen while no turn ran: where a turn's transcript starts. */
  private idle = '';
  /** Prompts typed through paneward, by the turn they armed, until that turn starts. */
  private readonly prompts = new Map<string, string>();
  /** The record's reply so far for the open turn (its last message), bounded. */
  private recordReply: { text: string; messageId?: string } | null = null;
  /** The last turn ended, while no other started: a record's reply may still come for it. */
  private lastEnded: { payload: TurnPayload } | null = null;

  constructor(
    private readonly terminalId: string,
    private readonly emit: (payload: TurnPayload) => void,
    /** Lines of the projection a screen reply leaves out (the profile's `replyChrome`). */
    private readonly replyChrome: readonly RegExp[] = [],
  ) {}

  /** A prompt paneward typed arms `turnId`. */
  submitted(turnId: string, prompt: string): void {
    this.prompts.clear();
    this.prompts.set(turnId, prompt);
  }

  /** The projection of a frame read while no turn runs. */
  idleProjection(text: string): void {
    this.idle = text;
  }

  /** The reply text of a piece of the session record. */
  reply(r: RecordReply): void {
    const bound = (t: string) => (t.length > MAX_REPLY_BYTES ? t.slice(0, MAX_REPLY_BYTES + 1) : t);
    const prev = this.recordReply;
    const joined =
      r.part === true &&
      prev !== null &&
      r.messageId !== undefined &&
      prev.messageId === r.messageId
        ? prev.text.length > MAX_REPLY_BYTES
          ? prev.text
          : `${prev.text}\n\n${bound(r.text)}`
        : r.text;
    this.recordReply = {
      text: bound(joined),
      ...(r.messageId !== undefined ? { messageId: r.messageId } : {}),
    };
    // The screen ended the turn before the record's reply was read: the record's text is the reply.
    const last = this.lastEnded;
    if (this.open === null && last !== null && last.payload.reply?.source !== 'record') {
      last.payload = { ...last.payload, reply: recordText(this.recordReply.text) };
      this.emit(last.payload);
    }
  }

  /**
   * The record says a turn started (its prompt line): replies read before it (the record's
   * history, read when it was found; the turn before) are not this turn's.
   */
  recordTurnStarted(): void {
    this.recordReply = null;
    this.lastEnded = null;
  }

  /** A turn started, ended or was reopened; `projection` is the screen's transcript now. */
  turn(ev: TurnLifecycle, projection: string): void {
    if (ev.kind === 'turn.started' || ev.kind === 'turn.reopened') {
      const reopened = ev.kind === 'turn.reopened' && this.lastEnded?.payload.turnId === ev.turn.id;
      const prompt = this.prompts.get(ev.turn.id) ?? null;
      this.prompts.delete(ev.turn.id);
      this.open = {
        turnId: ev.turn.id,
        source: ev.turn.source,
        startedAt: ev.turn.startedAt,
        prompt,
        baseline: this.idle,
      };
      if (!reopened) this.recordReply = null;
      this.lastEnded = null;
      this.emit(this.running(this.open));
      return;
    }
    const open: OpenTurn =
      this.open?.turnId === ev.turnId
        ? this.open
        : {
            turnId: ev.turnId,
            source: ev.source,
            startedAt: ev.t,
            prompt: this.prompts.get(ev.turnId) ?? null,
            baseline: this.idle,
          };
    this.open = null;
    const reply =
      this.recordReply !== null
        ? recordText(this.recordReply.text)
        : screenText(open, projection, this.replyChrome);
    const payload: TurnPayload = {
      terminalId: this.terminalId,
      turnId: open.turnId,
      source: open.source,
      ended: true,
      result: ev.outcome,
      reply,
      evidence: {
        witness: ev.witness ?? null,
        record: ev.record ?? null,
        hook: ev.hook ?? null,
      },
      timing: {
        startedAt: open.startedAt,
        endedAt: ev.t,
        durationMs: Math.max(0, Math.round((ev.t - open.startedAt) * 1000)),
      },
    };
    this.lastEnded = { payload };
    this.emit(payload);
  }

  private running(open: OpenTurn): TurnPayload {
    return {
      terminalId: this.terminalId,
      turnId: open.turnId,
      source: open.source,
      ended: false,
      result: null,
      reply: null,
      evidence: { witness: null, record: null, hook: null },
      timing: { startedAt: open.startedAt, endedAt: null, durationMs: null },
    };
  }
}

function recordText(text: string): NonNullable<TurnPayload['reply']> {
  const capped = capBytes(text);
  return { text: capped.text, source: 'record', truncated: capped.cut };
}

/**
 * A reply read from the screen without what the CLI draws around it: the lines of its chrome,
 * blank lines at either end, and the indent every line shares (the CLI's margin).
 */
function withoutLayout(text: string, chrome: readonly RegExp[]): string {
  const lines = text.split('\n').filter((l) => !chrome.some((c) => c.test(l)));
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  const margin = Math.min(
    ...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length),
  );
  return lines.map((l) => l.slice(Number.isFinite(margin) ? margin : 0)).join('\n');
}

function screenText(
  open: OpenTurn,
  projection: string,
  chrome: readonly RegExp[],
): NonNullable<TurnPayload['reply']> {
  const found = replyFromScreen(open.baseline, projection, open.prompt);
  const text = withoutLayout(found.text, chrome);
  if (text === '') return { text: '', source: null, truncated: false };
  const capped = capBytes(text);
  return { text: capped.text, source: 'screen', truncated: capped.cut || !found.whole };
}
