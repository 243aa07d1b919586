import { describe, expect, it } from 'vitest';
import { loadReplayed, stateAt } from '../../replay/ground-truth.js';

/** The prompt box's placeholder or bars: a live prompt box is drawn. */
const PROMPT_BOX = /^▄{10,}$/m;

describe('gemini_cli start-up dialogs, replayed', () => {
  for (const [scenario, marker] of [
    ['startup-trust-dialog', 'Do you trust the files in this folder'],
    ['startup-auth-dialog', 'How would you like to authenticate'],
  ] as const) {
    it(`${scenario}: blocked while the dialog is up, ready once the prompt box returns`, () => {
      const r = loadReplayed('gemini_cli', scenario);
      // Live dialog frames: the dialog is drawn and no prompt box is (the restarted CLI draws its
      // box under the old dialog's text, which then is history).
      const live = r.frames.filter((f) => f.text.includes(marker) && !PROMPT_BOX.test(f.text));
      expect(live.length).toBeGreaterThan(4);
      for (const f of live) {
        expect(stateAt(r.states, f.t)!.readiness.status, `readiness at ${f.t}`).toBe('blocked');
      }
      const lastLive = live.at(-1)!.t;
      const firstBox = r.frames.find((f) => f.t > lastLive && PROMPT_BOX.test(f.text));
      expect(firstBox).toBeDefined();
      expect(stateAt(r.states, firstBox!.t)!.readiness.status).toBe('ready');
      expect(r.states.at(-1)!.readiness.status).toBe('ready');
    });
  }
});
