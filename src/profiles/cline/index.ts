import { readClineQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readClineScreen } from './read-screen.js';
import { CLINE_3_0 } from './vocabulary.js';
import { clineLaunch } from './launch.js';
import { clineSessionRecord } from './session-record.js';

/**
 * Cline CLI: the prompt box between two rules, the permission question drawn in its place, and
 * the latest turn. It draws no marker for an interrupt, so a reply is never reported as a
 * success it might not be: the turn completes with no outcome.
 */
export const createClineProfile = defineProfile({
  id: 'cline',
  verifiedVersions: ['3.0.65'],
  packages: ['cline', '@cline/cli'],
  processNames: ['cline'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  editions: [{ label: '3.0', covers: (major) => major >= 3, vocabulary: CLINE_3_0 }],
  read: readClineScreen,
  question: readClineQuestion,
  launch: clineLaunch,
  sessionRecord: clineSessionRecord,
  hooks: 'cline_scripts',
});
