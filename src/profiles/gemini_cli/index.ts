import { readGeminiQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readGeminiCliScreen } from './read-screen.js';
import { GEMINI_CLI_0_61 } from './vocabulary.js';
import { geminiCliLaunch } from './launch.js';
import { geminiCliSessionRecord } from './session-record.js';

/**
 * Gemini CLI: the prompt box and the status area above it, the dialogs drawn over the box, and
 * the latest turn of the transcript.
 */
export const createGeminiCliProfile = defineProfile({
  id: 'gemini_cli',
  verifiedVersions: ['0.61.0'],
  packages: ['@google/gemini-cli'],
  processNames: ['gemini'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  // It starts again once a folder is trusted; the trust dialog stays drawn until it has.
  answerCloseMs: { trust_folder: 20_000 },
  editions: [
    {
      label: '0.61',
      covers: (major, minor) => major > 0 || minor >= 61,
      vocabulary: GEMINI_CLI_0_61,
    },
  ],
  read: readGeminiCliScreen,
  question: readGeminiQuestion,
  launch: geminiCliLaunch,
  sessionRecord: geminiCliSessionRecord,
});
