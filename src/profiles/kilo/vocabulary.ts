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
  // Kilo's theme: near-black on amber; the others light grey on warm dark grey.
  highlight: {
    selected: ['fg=38;2;12;10;9 bg=48;2;204;167;0'],
    unselected: ['fg=38;2;166;160;155 bg=48;2;28;25;23'],
  },
  // Kilo's code carries opencode's compaction failures (`… too large to compact …`); its
  // recordings showed none (docs/profiles.md, "The chat context"). Named for Kilo.
  contextErrors: [{ type: 'kilo_too_large_to_compact', re: /\btoo large to compact\b/ }],
  compactionFailed: 'kilo_compaction_failed',
  permissionDialogs: [
    ...OPENCODE_1_18.permissionDialogs,
    // permission-denied: after Reject, `△ Reject permission`, `Tell Kilo what to do differently`.
    { title: /^\s*┃\s+△ Reject permission$/, keys: /enter confirm\s+esc cancel/ },
  ],
};
