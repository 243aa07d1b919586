// The control-mode source lives in control/ (split by concern); this path stays for importers.
export {
  canTurnOutputOff,
  createControlModeSource,
  type ControlSourceOptions,
} from './control/index.js';
