import { readOpencodeQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readOpencodeScreen } from './read-screen.js';
import { OPENCODE_1_18 } from './vocabulary.js';
import { opencodeLaunch } from './launch.js';

/**
 * opencode: the prompt box and the status row under it, the permission dialog, and the latest
 * assistant message's footer. One Escape only arms the interrupt; the second one interrupts.
 */
export const createOpencodeProfile = defineProfile({
  id: 'opencode',
  verifiedVersions: ['1.18.33'],
  packages: ['opencode-ai', 'opencode'],
  processNames: ['opencode'],
  interruptKeys: ['Escape'],
  interruptPresses: 2,
  interruptKeyGapMs: 200,
  submitKeys: ['Enter'],
  editions: [
    {
      label: '1.18',
      covers: (major, minor) => major > 1 || minor >= 18,
      vocabulary: OPENCODE_1_18,
    },
  ],
  read: readOpencodeScreen,
  question: readOpencodeQuestion,
  launch: opencodeLaunch,
  hooks: 'opencode_plugin',
  // Under each reply: its footer, and the empty rows of the prompt's bar above it.
  replyChrome: (v) => [v.messageFooter, /^\s*┃\s*$/],
});
