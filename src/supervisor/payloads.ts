import { MAX_TURN_PAYLOADS, type TurnPayload } from '../schemas/turn-payload.js';

/**
 * The payloads of each terminal's latest turns (docs/contracts.md §6), in memory only: at most
 * `perTerminal` turns a terminal (the oldest dropped first), each reply already capped. Nothing
 * here is journaled or published: it holds the agents' replies.
 */
export class TurnPayloadStore {
  private readonly byTerminal = new Map<string, Map<string, TurnPayload>>();

  constructor(private readonly perTerminal = MAX_TURN_PAYLOADS) {}

  /** Keeps a turn's payload (a newer one of the same turn replaces it). */
  put(payload: TurnPayload): void {
    let turns = this.byTerminal.get(payload.terminalId);
    if (!turns) this.byTerminal.set(payload.terminalId, (turns = new Map()));
    turns.delete(payload.turnId);
    turns.set(payload.turnId, payload);
    while (turns.size > this.perTerminal) turns.delete(turns.keys().next().value as string);
  }

  /** The kept payload of a turn, or undefined (never had, or dropped as older than the latest). */
  get(terminalId: string, turnId: string): TurnPayload | undefined {
    return this.byTerminal.get(terminalId)?.get(turnId);
  }

  /** The turn ids kept for a terminal, oldest first. */
  turnIds(terminalId: string): string[] {
    return [...(this.byTerminal.get(terminalId)?.keys() ?? [])];
  }

  /** Forgets a terminal's payloads (it was detached). */
  forget(terminalId: string): void {
    this.byTerminal.delete(terminalId);
  }
}
