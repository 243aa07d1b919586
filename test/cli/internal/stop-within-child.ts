// A process that stops like `paneward serve` does (src/cli/signals.ts), while a read of a FIFO
// with no writer holds one of Node's thread-pool threads: `blocked`, the stop itself waits on
// it; `held`, the stop is done but the read is still pending. Prints `ready` once it listens.
import { open } from 'node:fs/promises';
import { SHUTDOWN_DEADLINE_MS, stopWithin, untilStopSignal } from '../../../src/cli/signals.js';

const [fifo, mode] = process.argv.slice(2) as [string, 'blocked' | 'held'];
const signals = untilStopSignal();
const alive = setInterval(() => undefined, 1000);
process.stdout.write('ready\n');
const signal = await signals.stopped;
clearInterval(alive);
const pending = new Set(['session record follower']);
await stopWithin(
  {
    stop: async () => {
      const opening = open(fifo, 'r');
      if (mode === 'blocked') await opening;
      pending.clear();
    },
    stopping: () => [...pending],
  },
  { ms: SHUTDOWN_DEADLINE_MS, signal, release: signals.release },
);
