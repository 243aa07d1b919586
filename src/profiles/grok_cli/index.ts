import { readGrokQuestion } from './question.js';
import { defineProfile } from '../internal/define.js';
import { readGrokCliScreen } from './read-screen.js';
import { GROK_CLI_0_0 } from './vocabulary.js';
import { grokCliLaunch } from './launch.js';

/** grok-cli: the rounded prompt box, the working line above it, and the latest turn. */
export const createGrokCliProfile = defineProfile({
  id: 'grok_cli',
  verifiedVersions: ['0.0.34'],
  packages: ['@vibe-kit/grok-cli'],
  processNames: ['grok'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  editions: [{ label: '0.0', covers: () => true, vocabulary: GROK_CLI_0_0 }],
  read: readGrokCliScreen,
  question: readGrokQuestion,
  launch: grokCliLaunch,
});
