// The public surface of a terminal whose screen was not read.
export const UNKNOWN_SURFACE = {
  availability: 'unknown',
  businessState: 'unknown',
  inputMode: 'unknown',
  uiContext: 'unknown',
  acceptingInput: 'unknown',
  editingInput: 'unknown',
  readyPosture: 'unknown',
  blockedPrompt: null,
  question: null,
  activeReasons: [],
};
