import { describe, expect, it } from 'vitest';
import type { ParseOutcome, ProcessOutcome, TransportOutcome } from '../../src/schemas/probe.js';
import { createActor } from 'xstate';
import { diagnosticsMachine } from '../../machines/diagnostics.js';

const EVENT_STATE = {
  evt_probe_error: 'error',
  evt_probe_unavailable: 'unavailable',
  evt_probe_tui_down: 'tui_down',
  evt_probe_unknown: 'unknown',
  evt_probe_available: 'available',
} as const;

/** The availability the diagnostics chart maps one probe cycle to (the event it raises). */
function mapProbeOutcome(probe: {
  transport: TransportOutcome;
  process: ProcessOutcome;
  parse: ParseOutcome;
}): string | null {
  let raised: string | null = null;
  const actor = createActor(diagnosticsMachine, {
    inspect: (ev) => {
      if (ev.type === '@xstate.microstep' && ev.event.type.startsWith('evt_'))
        raised = ev.event.type;
    },
  }).start();
  actor.send({ type: 'probe', probe });
  actor.stop();
  return raised === null ? null : EVENT_STATE[raised as keyof typeof EVENT_STATE];
}

const TRANSPORT: TransportOutcome[] = ['tmux_up', 'tmux_missing', 'probe_error'];
const PROCESS: ProcessOutcome[] = [
  'tui_up',
  'tui_down',
  'unsupported_tool',
  'probe_error',
  'unknown',
];
const PARSE: ParseOutcome[] = [
  'parsed',
  'skipped_tui_down',
  'unsupported_tool',
  'transport_unavailable',
  'probe_error',
  'parse_error',
];

describe('diagnostics chart: probe mapping (statecharts.md §6, first match wins)', () => {
  it.each([
    ['probe error in transport', 'probe_error', 'tui_up', 'parsed', 'error'],
    ['probe error in process', 'tmux_up', 'probe_error', 'parsed', 'error'],
    ['probe error in parse', 'tmux_up', 'tui_up', 'probe_error', 'error'],
    ['parse error', 'tmux_up', 'tui_up', 'parse_error', 'error'],
    ['error beats tmux missing', 'tmux_missing', 'unknown', 'parse_error', 'error'],
    ['tmux missing', 'tmux_missing', 'unknown', 'transport_unavailable', 'unavailable'],
    ['tmux missing beats tui down', 'tmux_missing', 'tui_down', 'skipped_tui_down', 'unavailable'],
    ['TUI down', 'tmux_up', 'tui_down', 'skipped_tui_down', 'tui_down'],
    ['TUI down beats unsupported tool', 'tmux_up', 'tui_down', 'unsupported_tool', 'tui_down'],
    ['unsupported tool (process)', 'tmux_up', 'unsupported_tool', 'unsupported_tool', 'unknown'],
    [
      'unsupported tool (parse) beats parsed process',
      'tmux_up',
      'tui_up',
      'unsupported_tool',
      'unknown',
    ],
    ['unsupported process even if parsed', 'tmux_up', 'unsupported_tool', 'parsed', 'unknown'],
    ['parsed and supported', 'tmux_up', 'tui_up', 'parsed', 'available'],
    ['otherwise unknown', 'tmux_up', 'unknown', 'transport_unavailable', 'unknown'],
    ['otherwise unknown (skipped, process up)', 'tmux_up', 'tui_up', 'skipped_tui_down', 'unknown'],
  ] as const)('%s', (_name, transport, process, parse, want) => {
    expect(mapProbeOutcome({ transport, process, parse })).toBe(want);
  });

  it('agrees with the table for every combination', () => {
    for (const transport of TRANSPORT)
      for (const process of PROCESS)
        for (const parse of PARSE) {
          const want =
            transport === 'probe_error' ||
            process === 'probe_error' ||
            parse === 'probe_error' ||
            parse === 'parse_error'
              ? 'error'
              : transport === 'tmux_missing'
                ? 'unavailable'
                : process === 'tui_down'
                  ? 'tui_down'
                  : process === 'unsupported_tool' || parse === 'unsupported_tool'
                    ? 'unknown'
                    : parse === 'parsed'
                      ? 'available'
                      : 'unknown';
          expect(
            mapProbeOutcome({ transport, process, parse }),
            `${transport}/${process}/${parse}`,
          ).toBe(want);
        }
  });
});
