import { fileURLToPath } from 'node:url';
import type { ProfileFactory } from '../../../src/profiles/types.js';
import { NO_SIGNALS, type ProfileResult } from '../../../src/schemas/signals.js';

/** The stand-in agent's script, to run with `node`. */
export const STAND_IN_AGENT = fileURLToPath(new URL('./stand-in-agent.mjs', import.meta.url));

/**
 * The profile of the stand-in agent: a prompt `❯` on the last line is an idle, ready surface
 * (text after it is a draft); a spinner line `⠋ working` last means working; a reply line `●`
 * right above the prompt makes the latest turn a success candidate, `⏹ interrupted` an
 * interrupted one; `Allow the tool to run? [y/n]` last is a permission prompt.
 */
export const standInProfile: ProfileFactory = () => ({
  id: 'stand_in',
  verifiedVersions: 'test',
  processNames: ['stand-in-agent'],
  interruptKeys: ['C-c'],
  submitKeys: ['Enter'],
  parse: (screen): ProfileResult => {
    const lines = screen.text.split('\n').map((l) => l.trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    const last = lines.at(-1) ?? '';
    const above = lines.slice(0, -1);
    const projectionText = above.join('\n');
    if (last.startsWith('❯')) {
      // Ctrl-C at the prompt is echoed (`^C`) but the line discipline drops the line: no draft.
      const draft = last.slice(1).replaceAll('^C', '').trim() !== '';
      const replied = (above.at(-1) ?? '').startsWith('● ');
      // The terminal echoes the Ctrl-C (`^C`) in front of the marker.
      const interrupted = (above.at(-1) ?? '').includes('⏹ interrupted');
      return {
        surface: {
          availability: 'supported',
          businessState: 'idle',
          inputMode: 'freeform',
          uiContext: 'normal_prompt',
          projectionText,
        },
        signals: {
          ...NO_SIGNALS,
          activeReasons: [],
          acceptingInput: 'yes',
          editingInput: draft ? 'yes' : 'no',
          readyPosture: 'yes',
          successCandidate: replied && !draft,
          interrupted,
          chatContext: 'current',
        },
        evidence: {
          detector: 'stand_in',
          rule: draft ? 'draft' : replied ? 'replied' : interrupted ? 'interrupted' : 'prompt',
        },
      };
    }
    if (last.startsWith('Allow the tool to run?')) {
      return {
        surface: {
          availability: 'supported',
          businessState: 'awaiting_operator',
          inputMode: 'modal',
          uiContext: 'permission_prompt',
          projectionText,
        },
        signals: {
          ...NO_SIGNALS,
          activeReasons: [],
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          blockedPrompt: 'tool_permission',
          chatContext: 'current',
        },
        evidence: { detector: 'stand_in', rule: 'permission' },
      };
    }
    if (last.startsWith('⠋ working')) {
      return {
        surface: {
          availability: 'supported',
          businessState: 'working',
          inputMode: 'closed',
          uiContext: 'normal_prompt',
          projectionText,
        },
        signals: {
          ...NO_SIGNALS,
          activeReasons: ['spinner'],
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          chatContext: 'current',
        },
        evidence: { detector: 'stand_in', rule: 'working' },
      };
    }
    return {
      surface: {
        availability: 'supported',
        businessState: 'unknown',
        inputMode: 'unknown',
        uiContext: 'unrecognised',
        projectionText,
      },
      signals: { ...NO_SIGNALS, activeReasons: [] },
      evidence: { detector: 'stand_in', rule: 'unrecognised' },
    };
  },
});
