import { readOpencodeQuestion } from '../opencode/question.js';
import { defineProfile } from '../internal/define.js';
import { readOpencodeScreen } from '../opencode/read-screen.js';
import { KILO_7_7 } from './vocabulary.js';
import { kiloLaunch } from './launch.js';

/** Kilo CLI: opencode's layout (Kilo is a fork of it) with Kilo's words. */
export const createKiloProfile = defineProfile({
  id: 'kilo',
  verifiedVersions: ['7.7.7'],
  packages: ['@kilocode/cli'],
  // The node launcher, and the native binary it starts (`.kilo`).
  processNames: ['kilo', '.kilo'],
  interruptKeys: ['Escape'],
  interruptPresses: 2,
  interruptKeyGapMs: 200,
  submitKeys: ['Enter'],
  editions: [{ label: '7.7', covers: (major) => major >= 7, vocabulary: KILO_7_7 }],
  read: readOpencodeScreen,
  question: readOpencodeQuestion,
  launch: kiloLaunch,
  hooks: 'opencode_plugin',
  // Under each reply: its footer, and the empty rows of the prompt's bar above it.
  replyChrome: (v) => [v.messageFooter, /^\s*┃\s*$/],
});
