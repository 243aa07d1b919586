/**
 * How paneward starts one agent CLI (`spawn`): the executable (looked up on `PATH`), the
 * options that continue the last conversation in the same folder (used when it is started
 * again after it died), and how it is ended. Facts about the CLI, checked against its own
 * `--help` and its screens.
 */
export interface LaunchRecipe {
  /** The profile id. */
  tool: string;
  /** The executable's name, looked up on `PATH` (never run through a shell). */
  executable: string;
  /** Arguments it always gets, before the user's. */
  baseArgs: readonly string[];
  /**
   * Arguments that continue the most recent conversation in the working folder; null when the
   * CLI has none (it needs a session id, or cannot resume): a restart then starts afresh.
   */
  resumeArgs: readonly string[] | null;
  /** Typed (text) and pressed (tmux key names) in turn to end the CLI. */
  exit: readonly ExitStep[];
  /**
   * What a first run in a new folder or HOME may ask before the prompt (a trust question, a
   * login, a theme); null when it asks nothing. The spawn answers `blocked` on it.
   */
  firstRunQuestion: string | null;
}

/** One step of an exit sequence: text typed literally, or tmux key names pressed. */
export type ExitStep = { text: string } | { keys: readonly string[] };

/** `/exit`-style: the command typed, then Enter. */
export const typed = (command: string): readonly ExitStep[] => [
  { text: command },
  { keys: ['Enter'] },
];
