export { createControlModeSource } from './source.js';
export { canTurnOutputOff } from './flow.js';
export type { ControlSourceOptions } from './options.js';
