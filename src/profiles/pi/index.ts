import { defineProfile } from '../internal/define.js';
import { readPiScreen } from './read-screen.js';
import { PI_0_73 } from './vocabulary.js';
import { piLaunch } from './launch.js';

/** pi: the editor between two rules, the working line above it, and the transcript's last line. */
export const createPiProfile = defineProfile({
  id: 'pi',
  verifiedVersions: ['0.73.1'],
  packages: ['@mariozechner/pi-coding-agent'],
  processNames: ['pi'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  editions: [
    { label: '0.73', covers: (major, minor) => major > 0 || minor >= 73, vocabulary: PI_0_73 },
  ],
  read: readPiScreen,
  launch: piLaunch,
});
