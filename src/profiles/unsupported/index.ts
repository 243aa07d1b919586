import { NO_SIGNALS } from '../../schemas/signals.js';
import type { ProfileFactory, ToolProfile } from '../types.js';

/**
 * The generic fallback for a pane whose tool paneward has no profile for: the surface is
 * `unsupported`, so readiness reports `failed` instead of guessing, and the probe reports
 * `unsupported_tool`. The transcript is still projected (trailing blank lines dropped). It reads
 * no shapes, so `recognised` (a matter of a CLI's known shapes) does not apply and is left out.
 */
export const createUnsupportedProfile: ProfileFactory = (): ToolProfile => ({
  id: 'unsupported',
  verifiedVersions: '*',
  processNames: [],
  interruptKeys: ['C-c'],
  submitKeys: ['Enter'],
  parse: (screen) => ({
    surface: {
      availability: 'unsupported',
      businessState: 'unknown',
      inputMode: 'unknown',
      uiContext: 'unrecognised',
      projectionText: screen.text.replace(/\s+$/, ''),
    },
    signals: { ...NO_SIGNALS, activeReasons: [] },
    evidence: { detector: 'unsupported', rule: 'no_profile' },
  }),
});
