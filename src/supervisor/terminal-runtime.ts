/** A terminal's runtime lives with the rest of a terminal, in src/terminal. */
export {
  provideTerminal,
  RunningTerminals,
  type TerminalRuntimeDeps,
} from '../terminal/runtime.js';
export { commandError, pressInterrupt } from '../terminal/typing.js';
