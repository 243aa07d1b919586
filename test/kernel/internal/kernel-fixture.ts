import { Kernel, type KernelOptions } from '../../../src/kernel/kernel.js';
import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { KernelRecord } from '../../../src/schemas/kernel.js';
import type { Observation } from '../../../src/schemas/observation.js';

export const WORKING = { businessState: 'working', inputMode: 'closed' } as const;
export const UNKNOWN = { businessState: 'unknown', inputMode: 'unknown' } as const;
export const BLOCKED = { businessState: 'awaiting_operator', inputMode: 'modal' } as const;

/** A Kernel on a virtual clock with its records collected. */
export function kernelOnVirtualTime(options: Omit<KernelOptions, 'scheduler'> = {}) {
  const clock = new VirtualClock();
  const kernel = new Kernel({ ...options, scheduler: clock.scheduler });
  const records: KernelRecord[] = [];
  kernel.records$.subscribe((r) => records.push(r));
  const at = (t: number) => {
    clock.advanceTo(t);
    kernel.advance(t);
  };
  const observe = (t: number, o: Partial<Observation> = {}) => {
    clock.advanceTo(t);
    kernel.observe(t, {
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: 'normal_prompt',
      projectionText: 'baseline',
      baselineInvalidated: false,
      ...o,
    });
  };
  const submit = (t: number, baseline = 'baseline') => {
    clock.advanceTo(t);
    return kernel.submit(t, baseline);
  };
  const of = (machine: string, turn?: number) =>
    records.filter(
      (r) => 'machine' in r && r.machine === machine && (turn === undefined || r.turn === turn),
    );
  const anomalies = () => records.filter((r) => 'anomaly' in r);
  return { clock, kernel, records, at, observe, submit, of, anomalies };
}
