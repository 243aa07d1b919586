import { readCopilotQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readCopilotScreen } from './read-screen.js';
import { COPILOT_1_0 } from './vocabulary.js';
import { copilotLaunch } from './launch.js';
import { copilotSessionRecord } from './session-record.js';

/**
 * GitHub Copilot CLI: the prompt box between two rules, the working row under it, the dialogs
 * drawn in the box's place, and the latest turn. It interrupts on a second Escape pressed soon
 * after the first (half a second is too late).
 */
export const createCopilotProfile = defineProfile({
  id: 'copilot',
  verifiedVersions: ['1.0.102'],
  packages: ['@github/copilot'],
  processNames: ['copilot'],
  interruptKeys: ['Escape'],
  interruptPresses: 2,
  interruptKeyGapMs: 200,
  submitKeys: ['Enter'],
  editions: [{ label: '1.0', covers: (major) => major >= 1, vocabulary: COPILOT_1_0 }],
  read: readCopilotScreen,
  question: readCopilotQuestion,
  launch: copilotLaunch,
  sessionRecord: copilotSessionRecord,
});
