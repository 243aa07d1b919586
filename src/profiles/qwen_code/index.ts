import { readQwenQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readQwenCodeScreen } from './read-screen.js';
import { QWEN_CODE_0_15, QWEN_CODE_0_24 } from './vocabulary.js';
import { qwenCodeLaunch } from './launch.js';
import { qwenCodeSessionRecord } from './session-record.js';

/** Qwen Code: the prompt box between two rules, the spinner line above it, and the latest turn. */
export const createQwenCodeProfile = defineProfile({
  id: 'qwen_code',
  verifiedVersions: ['0.24.4', '0.15.10'],
  packages: ['@qwen-code/qwen-code'],
  processNames: ['qwen'],
  interruptKeys: ['Escape'],
  // 0.24 puts an interrupted prompt back into the box; Ctrl+U clears a line of it (Ctrl+C
  // would clear it too, but warns that a second press exits).
  clearPutBackDraftKeys: ['C-u'],
  submitKeys: ['Enter'],
  // It starts again once a folder is trusted; the trust dialog stays drawn until it has.
  answerCloseMs: { trust_folder: 20_000 },
  // 0.16 to 0.23 were not recorded: the 0.24 edition reads them, as it knows 0.15's glyphs too.
  editions: [
    {
      label: '0.24',
      covers: (major, minor) => major > 0 || minor >= 16,
      vocabulary: QWEN_CODE_0_24,
    },
    {
      label: '0.15',
      covers: (major, minor) => major === 0 && minor <= 15,
      vocabulary: QWEN_CODE_0_15,
    },
  ],
  read: readQwenCodeScreen,
  question: readQwenQuestion,
  launch: qwenCodeLaunch,
  sessionRecord: qwenCodeSessionRecord,
});
