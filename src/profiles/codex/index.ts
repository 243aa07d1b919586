import { defineProfile } from '../internal/define.js';
import { readCodexQuestion } from './question.js';
import { readCodexScreen } from './read-screen.js';
import { CODEX_0_169 } from './vocabulary.js';
import { codexLaunch } from './launch.js';
import { codexSessionRecord } from './session-record.js';

/**
 * Codex CLI: the composer (`›`), the status line above it, the footer, the start-up folder
 * trust question, approval dialogs, and the latest turn of the transcript.
 */
export const createCodexProfile = defineProfile({
  id: 'codex',
  verifiedVersions: ['0.171.0', '0.169.0'],
  packages: ['@openai/codex'],
  processNames: ['codex'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  editions: [
    {
      label: '0.169',
      covers: (major, minor) => major > 0 || minor >= 169,
      vocabulary: CODEX_0_169,
    },
  ],
  read: readCodexScreen,
  question: readCodexQuestion,
  launch: codexLaunch,
  sessionRecord: codexSessionRecord,
});
