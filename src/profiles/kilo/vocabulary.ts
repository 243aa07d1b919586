import { OPENCODE_1_18, type OpencodeVocabulary } from '../opencode/vocabulary.js';

/**
 * Kilo CLI 7.7.7: an opencode fork, read with opencode's reader. Only its words differ; each
 * was seen in the recordings under `test/fixtures/kilo/` (the scenario named beside it).
 */
export const KILO_7_7: OpencodeVocabulary = {
  ...OPENCODE_1_18,
  // startup: `Ask anything... "What is the tech stack of this project?"` (three dots).
  placeholder: /^Ask anything\.\.\. /,
  // startup: the block logo spelling KILO (`██  ██ ██🬺🬏`).
  logo: /██ {2}██ ██/,
  // cli-exit: beside the logo, `kilo -s ses_…` to resume the session.
  exitNote: /\bkilo -s ses_\w+$/,
  permissionDialogs: [
    ...OPENCODE_1_18.permissionDialogs,
    // permission-denied: after Reject, `△ Reject permission`, `Tell Kilo what to do differently`.
    { title: /^\s*┃\s+△ Reject permission$/, keys: /enter confirm\s+esc cancel/ },
  ],
};
