import { PanewardError } from '../errors.js';
import { Kernel } from '../kernel/kernel.js';
import { VirtualClock } from '../kernel/virtual-time.js';
import { parseJsonLine, readJsonLines } from '../internal/jsonl.js';
import { ScenarioLine, type KernelRecord } from '../schemas/kernel.js';

/**
 * Runs a kernel scenario (docs/contracts.md §1) on virtual time, handing each record to `print` as
 * it happens, so everything before a bad line is still printed.
 */
export function replayKernelScenario(file: string, print: (record: KernelRecord) => void): void {
  const lines = readJsonLines(file);
  let kernel: Kernel | null = null;
  const clock = new VirtualClock();
  const start = (config = {}) => {
    const k = new Kernel({ config, scheduler: clock.scheduler });
    // The contract's lines (docs/contracts.md §1): the chart's rule is journal evidence, not output.
    k.records$.subscribe((r) => {
      if ('rule' in r) {
        const { rule: _rule, ...line } = r;
        print(line);
      } else print(r);
    });
    return k;
  };
  let lastT = 0;
  try {
    for (const [index, [lineNumber, text]] of lines.entries()) {
      const line = parseJsonLine(ScenarioLine, lineNumber, text, 'invalid_scenario');
      if (line.type === 'config') {
        if (index !== 0) {
          throw new PanewardError(
            'invalid_scenario',
            `line ${lineNumber}: field \`type\`: a config line must be the first line`,
          );
        }
        kernel = start(line);
        continue;
      }
      kernel ??= start();
      if (line.t < lastT) {
        throw new PanewardError(
          'invalid_scenario',
          `line ${lineNumber}: field \`t\`: time went backwards (${line.t} < ${lastT})`,
        );
      }
      lastT = line.t;
      clock.advanceTo(line.t);
      if (line.type === 'submit') kernel.submit(line.t, line.baseline);
      else if (line.type === 'observation') kernel.observe(line.t, line);
      else kernel.advance(line.t);
    }
  } finally {
    kernel?.dispose();
  }
}
