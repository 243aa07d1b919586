import { defineProfile } from '../internal/define.js';
import { readClaudeCodeQuestion } from './question.js';
import { readClaudeCodeScreen } from './read-screen.js';
import { CLAUDE_CODE_2_1 } from './vocabulary.js';
import { claudeCodeLaunch } from './launch.js';
import { claudeCodeSessionRecord } from './session-record.js';

/**
 * Claude Code: the prompt box, the spinner status line above it, the footer hints, its dialogs
 * and the latest turn of the transcript.
 */
export const createClaudeCodeProfile = defineProfile({
  id: 'claude_code',
  verifiedVersions: ['2.1.332', '2.1.330'],
  packages: ['@anthropic-ai/claude-code'],
  processNames: ['claude'],
  interruptKeys: ['Escape'],
  submitKeys: ['Enter'],
  // A digit typed as soon as the permission dialog is seen only moves its cursor; 150 ms later
  // it chooses (measured on 2.1.332). Half a second leaves room for a loaded machine.
  answerSettleMs: 500,
  editions: [{ label: '2.1', covers: (major) => major >= 2, vocabulary: CLAUDE_CODE_2_1 }],
  read: readClaudeCodeScreen,
  question: readClaudeCodeQuestion,
  launch: claudeCodeLaunch,
  sessionRecord: claudeCodeSessionRecord,
  hooks: 'claude_settings',
});
