import { setup } from 'xstate';

/** One probe cycle's mapped outcome (statecharts.md §6). */
export type DiagnosticsEvent =
  | { type: 'evt_probe_available' }
  | { type: 'evt_probe_unavailable' }
  | { type: 'evt_probe_tui_down' }
  | { type: 'evt_probe_error' }
  | { type: 'evt_probe_unknown' };

/** Diagnostics availability: can we see the terminal at all? Only `available` makes the surface meaningful. */
export const diagnosticsMachine = setup({
  types: {
    events: {} as DiagnosticsEvent,
  },
}).createMachine({
  id: 'diagnostics',
  initial: 'unknown',
  states: {
    unknown: {
      on: {
        evt_probe_available: { target: 'available' },
        evt_probe_unavailable: { target: 'unavailable' },
        evt_probe_tui_down: { target: 'tui_down' },
        evt_probe_error: { target: 'error' },
      },
    },
    available: {
      on: {
        evt_probe_tui_down: { target: 'tui_down' },
        evt_probe_unavailable: { target: 'unavailable' },
        evt_probe_error: { target: 'error' },
      },
    },
    tui_down: {
      on: {
        evt_probe_available: { target: 'available' },
        evt_probe_unavailable: { target: 'unavailable' },
        evt_probe_error: { target: 'error' },
      },
    },
    unavailable: {
      on: {
        evt_probe_available: { target: 'unknown' },
        evt_probe_tui_down: { target: 'unknown' },
        evt_probe_unknown: { target: 'unknown' },
        evt_probe_error: { target: 'error' },
      },
    },
    error: {
      on: {
        evt_probe_available: { target: 'available' },
        evt_probe_unavailable: { target: 'unavailable' },
        evt_probe_tui_down: { target: 'tui_down' },
        evt_probe_unknown: { target: 'unknown' },
      },
    },
  },
});

export type DiagnosticsState = 'unknown' | 'available' | 'unavailable' | 'tui_down' | 'error';
