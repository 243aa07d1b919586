import type { RecordedEnding } from '../profiles/session-record.js';

/** A turn event a CLI's hook told (docs/hooks.md): its event name, never any text. */
export type HookTurnEvent =
  | { type: 'turn_started'; event: string }
  | { type: 'turn_ended'; event: string; ending: RecordedEnding };

/**
 * What each CLI's hook events say about turns (docs/hooks.md), as verified on the pinned
 * versions. An event not listed tells nothing about turns: it is answered and ignored.
 */
interface ToolHooks {
  /** The versions these events were verified on. */
  verifiedVersions: readonly string[];
  /** The endings these hooks can tell; any other is left to the screen and the record. */
  endings: readonly RecordedEnding['reason'][];
  /** Event name → what it says; `error` is the failure kind the hook passed on, if any. */
  read(event: string, error: string | undefined): HookTurnEvent | null;
}

/** opencode's and Kilo's plugin events (docs/hooks.md). */
const OPENCODE_HOOKS: Omit<ToolHooks, 'verifiedVersions'> = {
  endings: ['success', 'interrupted', 'known_failure'],
  read(event, error) {
    if (event === 'session.busy') return { type: 'turn_started', event };
    if (event === 'session.idle') {
      return { type: 'turn_ended', event, ending: { reason: 'success' } };
    }
    if (event === 'session.error') {
      return error === 'MessageAbortedError'
        ? { type: 'turn_ended', event, ending: { reason: 'interrupted' } }
        : {
            type: 'turn_ended',
            event,
            ending: { reason: 'known_failure', kind: error ?? 'unknown' },
          };
    }
    return null;
  },
};

const TOOL_HOOKS: Readonly<Record<string, ToolHooks>> = {
  // `hooks` in settings.json. No hook fires when a turn is interrupted (Esc).
  claude_code: {
    verifiedVersions: ['2.1.332', '2.1.330'],
    endings: ['success', 'known_failure'],
    read(event, error) {
      if (event === 'UserPromptSubmit') return { type: 'turn_started', event };
      if (event === 'Stop') return { type: 'turn_ended', event, ending: { reason: 'success' } };
      if (event === 'StopFailure') {
        return {
          type: 'turn_ended',
          event,
          ending: { reason: 'known_failure', kind: error ?? 'unknown' },
        };
      }
      return null;
    },
  },
  // Executable files named after the event in `~/.cline/hooks`; the JSON on stdin names the
  // event `hookName`. An Esc interruption runs no hook (no `TaskCancel`, `agent_abort`).
  cline: {
    verifiedVersions: ['3.0.65'],
    endings: ['success', 'known_failure'],
    read(event) {
      if (event === 'agent_start') return { type: 'turn_started', event };
      if (event === 'agent_end')
        return { type: 'turn_ended', event, ending: { reason: 'success' } };
      if (event === 'agent_error') {
        return {
          type: 'turn_ended',
          event,
          ending: { reason: 'known_failure', kind: 'task_error' },
        };
      }
      // In the CLI's code a cancelled task runs `TaskCancel` (`agent_abort`); never seen to run.
      if (event === 'agent_abort') {
        return { type: 'turn_ended', event, ending: { reason: 'interrupted' } };
      }
      return null;
    },
  },
  // A plugin (`paneward hooks install opencode|kilo`) that passes on the session's status:
  // busy, an error (an interruption is `MessageAbortedError`), idle with no error since busy.
  opencode: { ...OPENCODE_HOOKS, verifiedVersions: ['1.18.33'] },
  kilo: { ...OPENCODE_HOOKS, verifiedVersions: ['7.7.7'] },
};

/** The tools `paneward hooks` knows. */
export function hookTools(): string[] {
  return Object.keys(TOOL_HOOKS);
}

/** The endings a tool's hooks can tell, or undefined when it has none. */
export function hookEndingsOf(tool: string): readonly RecordedEnding['reason'][] | undefined {
  return TOOL_HOOKS[tool]?.endings;
}

/**
 * What one hook event of `tool` says about turns: a turn started or ended, or null (the event
 * tells nothing about turns, or the tool has no hooks).
 */
export function hookTurnEvent(tool: string, event: string, error?: string): HookTurnEvent | null {
  return TOOL_HOOKS[tool]?.read(event, error) ?? null;
}
