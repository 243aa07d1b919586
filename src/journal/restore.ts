import type { JournalRecord, RestoreFacts } from '../schemas/record.js';

const TURN_ID = /^turn-(\d+)$/;

/**
 * Folds the record stream into what a restarted supervisor needs: which terminals are
 * attached (and with what request), each one's last-turn result, open turn and watchdog
 * window, and each terminal's next free turn number. Checkpoint records carry the same, so a
 * journal can drop old segments without losing it.
 *
 * Turn ids count per terminal (`turn-1` is a terminal's first turn), go on after a restart, and
 * are never reused, also by a terminal detached and attached again under the same id: a
 * terminal's counter outlives its attachment. A journal written when ids counted per journal
 * (its checkpoint has no `turns`) sets a floor for every terminal: its global next number.
 */
export class RestoreIndex {
  private readonly terminals = new Map<string, RestoreFacts>();
  private next = 1;
  /** Each terminal's next turn number. */
  private readonly turns = new Map<string, number>();
  /** No id below it is handed out (a journal from when ids counted per journal). */
  private floor = 1;

  /** One more than the highest turn number handed out to any terminal. */
  get nextTurn(): number {
    return this.next;
  }

  /** The next turn id's number for a terminal (`turn-N`, unique for it across restarts). */
  nextTurnOf(terminalId: string): number {
    return Math.max(this.turns.get(terminalId) ?? 1, this.floor);
  }

  facts(terminalId: string): RestoreFacts | undefined {
    return this.terminals.get(terminalId);
  }

  /** Every terminal attached and not detached, in attach order. */
  attached(): Array<[string, RestoreFacts]> {
    return [...this.terminals.entries()];
  }

  snapshot(): {
    nextTurn: number;
    turns: Record<string, number>;
    turnFloor: number;
    terminals: Record<string, RestoreFacts>;
  } {
    return {
      nextTurn: this.next,
      turns: Object.fromEntries(this.turns),
      turnFloor: this.floor,
      terminals: structuredClone(Object.fromEntries(this.terminals)),
    };
  }

  /** Notes a turn id handed out to a terminal, so its next one is unique. */
  noteTurnId(id: string, terminalId: string | null): void {
    const n = TURN_ID.exec(id);
    if (!n) return;
    const next = Number(n[1]) + 1;
    this.next = Math.max(this.next, next);
    if (terminalId !== null) {
      this.turns.set(terminalId, Math.max(this.turns.get(terminalId) ?? 1, next));
    }
  }

  apply(r: JournalRecord): void {
    const id = r.terminalId;
    const facts = id === null ? undefined : this.terminals.get(id);
    switch (r.kind) {
      case 'checkpoint':
        this.terminals.clear();
        for (const [tid, f] of Object.entries(r.terminals))
          this.terminals.set(tid, structuredClone(f));
        this.next = Math.max(this.next, r.nextTurn);
        if (r.turns === undefined) {
          this.floor = Math.max(this.floor, r.nextTurn);
        } else {
          this.floor = Math.max(this.floor, r.turnFloor ?? 1);
          for (const [tid, n] of Object.entries(r.turns)) {
            this.turns.set(tid, Math.max(this.turns.get(tid) ?? 1, n));
          }
        }
        return;
      case 'terminal.attached':
        if (id === null) return;
        this.terminals.set(id, {
          request: {
            target: r.target,
            tool: r.tool,
            toolVersion: r.toolVersion,
            watchdogBudgetSeconds: r.watchdogBudgetSeconds,
            ...(r.paneId === undefined ? {} : { paneId: r.paneId }),
            ...(r.config === undefined ? {} : { config: r.config }),
          },
          lastTurn: r.readopted ? (facts?.lastTurn ?? null) : null,
          openTurn: r.readopted ? (facts?.openTurn ?? null) : null,
          watchdog: r.readopted ? (facts?.watchdog ?? null) : null,
        });
        return;
      case 'terminal.detached':
        if (id !== null) this.terminals.delete(id);
        return;
      case 'turn.started':
        this.noteTurnId(r.turnId, id);
        if (facts) {
          facts.openTurn = {
            turn: { id: r.turnId, source: r.source, startedAt: r.startedAt },
            hadEvidence: r.source === 'surface_inference',
          };
        }
        return;
      case 'turn.reopened':
        if (facts) {
          facts.lastTurn = null;
          facts.openTurn = {
            turn: { id: r.turnId, source: r.source, startedAt: r.startedAt },
            hadEvidence: true,
          };
        }
        return;
      case 'turn.ended':
        if (!facts) return;
        if (r.outcome !== 'none') {
          facts.lastTurn = { result: r.outcome, source: r.source, turnId: r.turnId, at: r.t };
        }
        if (facts.openTurn?.turn.id === r.turnId) facts.openTurn = null;
        return;
      case 'state':
        if (
          facts?.openTurn &&
          (r.changed['completion.sawWorking'] === true ||
            r.changed['completion.sawProjectionChange'] === true)
        ) {
          facts.openTurn.hadEvidence = true;
        }
        return;
      case 'watchdog.window':
        if (facts) facts.watchdog = { sessionStartedAt: r.sessionStartedAt, fired: false };
        return;
      case 'watchdog.cancel':
        if (facts?.watchdog) facts.watchdog.fired = true;
        return;
      default:
        return;
    }
  }
}
