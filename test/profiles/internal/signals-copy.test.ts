import { describe, expect, it } from 'vitest';
import { getProfile } from '../../../src/profiles/index.js';
import { NO_SIGNALS } from '../../../src/schemas/signals.js';
import { recordedScreen, recordedScreens } from '../real-frame.js';

/** Real screens that give each profile's early returns (blank, exited, dialog, idle). */
const SCREENS: Record<string, Array<[string, number]>> = {
  claude_code: [
    ['normal-turn', 0],
    ['cli-exit', -1],
    ['permission-prompt', -1],
    ['normal-turn', -1],
  ],
  codex: [
    ['startup', 0],
    ['cli-exit', -1],
    ['cli-killed', -1],
    ['permission-prompt', 20],
    ['normal-turn', -1],
  ],
  gemini_cli: [
    ['normal-turn', 0],
    ['cli-exit', -1],
    ['permission-prompt', 40],
    ['normal-turn', -1],
  ],
};

describe('profiles never hand out shared signal arrays', () => {
  it.each(Object.keys(SCREENS))('%s copies activeReasons on every path', (tool) => {
    const profile = getProfile(tool);
    for (const [scenario, index] of SCREENS[tool]!) {
      const text = recordedScreen(tool, scenario, index);
      const a = profile.parse({ text });
      const b = profile.parse({ text });
      expect(a.signals.activeReasons, `${scenario}#${index}`).not.toBe(NO_SIGNALS.activeReasons);
      expect(a.signals.activeReasons, `${scenario}#${index}`).not.toBe(b.signals.activeReasons);
    }
  });

  it('the fixtures used above exist', () => {
    for (const tool of Object.keys(SCREENS))
      expect(recordedScreens(tool, 'normal-turn').length).toBeGreaterThan(1);
  });
});
