import type { JournalRecord, RestoreFacts } from '../schemas/record.js';

const TURN_ID = /^turn-(\d+)$/;

/**
 * Folds the record stream into what a restarted supervisor needs: which terminals are
 * attached (and with what request), each one's last-turn result, open turn and watchdog
 * window, and the next free turn number. Checkpoint records carry the same, so a journal can
 * drop old segments without losing it.
 */
export class RestoreIndex {
  private readonly terminals = new Map<string, RestoreFacts>();
  private next = 1;

  /** The next turn id to hand out (`turn-N`, unique across restarts). */
  get nextTurn(): number {
    return this.next;
  }

  facts(terminalId: string): RestoreFacts | undefined {
    return this.terminals.get(terminalId);
  }

  /** Every terminal attached and not detached, in attach order. */
  attached(): Array<[string, RestoreFacts]> {
    return [...this.terminals.entries()];
  }

  snapshot(): { nextTurn: number; terminals: Record<string, RestoreFacts> } {
    return { nextTurn: this.next, terminals: structuredClone(Object.fromEntries(this.terminals)) };
  }

  /** Notes a turn id handed out, so the next one is unique. */
  noteTurnId(id: string): void {
    const n = TURN_ID.exec(id);
    if (n) this.next = Math.max(this.next, Number(n[1]) + 1);
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
        this.noteTurnId(r.turnId);
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
