import { defineProfile } from '../internal/define.js';
import { readQwenCodeScreen } from './read-screen.js';
import { QWEN_CODE_0_15 } from './vocabulary.js';

/** Qwen Code: the prompt box between two rules, the spinner line above it, and the latest turn. */
export const createQwenCodeProfile = defineProfile({
  id: 'qwen_code',
  verifiedVersions: ['0.15.10'],
  packages: ['@qwen-code/qwen-code'],
  processNames: ['qwen'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  editions: [
    {
      label: '0.15',
      covers: (major, minor) => major > 0 || minor >= 15,
      vocabulary: QWEN_CODE_0_15,
    },
  ],
  read: readQwenCodeScreen,
});
