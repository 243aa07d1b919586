// A notifier on a test port, stopped after each test (importing this registers that), with its
// metrics and a wait; and a draft as the journal would write it.
import { Registry } from 'prom-client';
import { afterEach } from 'vitest';
import { Notifier, type NotifyConfig } from '../../../src/notify/notifier.js';
import { JournalRecord, type RecordDraft } from '../../../src/schemas/record.js';
import type { SupervisorPort } from '../../../src/service/port.js';

export const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

export function start(port: SupervisorPort, config: Partial<NotifyConfig>) {
  const drafts: RecordDraft[] = [];
  const registry = new Registry();
  const n = new Notifier(
    port,
    { webhooks: [], commands: [], debounceMs: 0, backoffMs: 20, ...config },
    { append: (d) => drafts.push(d) },
  );
  n.register(registry);
  running.push(n);
  /** The value of a counter or gauge for one label's value, a sink or an event (0 when none). */
  const metric = async (name: string, label: string) => {
    const text = await registry.metrics();
    const m = new RegExp(`^${name}\\{\\w+="${label}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  /** Waits until `check` holds (the deliveries run on their own). */
  const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { n, drafts, registry, metric, until };
}

/** A draft as the journal would write it: the journal's schema must take it. */
export const asRecord = (d: RecordDraft) =>
  JournalRecord.parse({ v: 1, seq: 1, at: new Date().toISOString(), ...d });
