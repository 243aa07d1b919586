import type { KV } from '@nats-io/kv';
import type { TerminalState } from '../schemas/terminal-state.js';
import { NATS_TIMEOUT_MS, withTimeout } from './connection.js';
import { stateKey } from './names.js';
import type { StateEntry } from './schemas.js';

/** Removes a host's entries of terminals no longer attached (detached while NATS was away). */
export async function dropDetached(state: KV, hostId: string, attachedIds: string[]) {
  await withTimeout(
    (async () => {
      const keys = await state.keys(`${hostId}.>`);
      const attached = new Set(attachedIds.map((id) => stateKey(hostId, id)));
      const gone: string[] = [];
      for await (const key of keys) if (!attached.has(key)) gone.push(key);
      await Promise.all(gone.map((key) => state.delete(key)));
    })(),
    4 * NATS_TIMEOUT_MS,
  );
}

/**
 * Writes each terminal's latest state (null: detached, its entry removed); answers the entries
 * that were not written, to be tried again.
 */
export async function writeStates(
  state: KV,
  hostId: string,
  entries: Array<[string, TerminalState | null]>,
): Promise<Array<[string, TerminalState | null]>> {
  const done = await Promise.allSettled(
    entries.map(([terminalId, s]) => {
      const key = stateKey(hostId, terminalId);
      if (s === null) return withTimeout<unknown>(state.delete(key));
      const entry: StateEntry = { host: hostId, terminalId, at: Date.now(), state: s };
      return withTimeout<unknown>(state.put(key, JSON.stringify(entry)));
    }),
  );
  return entries.filter((_, i) => done[i]!.status === 'rejected');
}
