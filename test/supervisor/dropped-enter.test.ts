import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { ProfileFactory } from '../../src/profiles/types.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

/**
 * The stand-in's profile, except that a prompt box holding a draft is a screen it cannot
 * place: nothing says "editing", and the transcript above it is as before.
 */
const unplacingProfile =
  (extra: { submitDelayMs?: number } = {}): ProfileFactory =>
  (v, o) => {
    const base = standInProfile(v, o);
    return {
      ...base,
      ...extra,
      parse: (screen) => {
        const r = base.parse(screen);
        if (r.evidence.rule !== 'draft') return r;
        return {
          ...r,
          surface: {
            ...r.surface,
            businessState: 'unknown',
            inputMode: 'unknown',
            uiContext: 'unplaced',
          },
          signals: {
            ...r.signals,
            acceptingInput: 'unknown',
            editingInput: 'unknown',
            readyPosture: 'unknown',
          },
          evidence: { detector: 'stand_in', rule: 'unplaced' },
        };
      },
    };
  };

describe('an Enter the CLI drops right after a paste', () => {
  let agent: AgentSession | undefined;
  let sup: Supervisor | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await sup?.stop();
    await agent?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function start(profile: ProfileFactory): Promise<string> {
    dir = mkdtempSync(join(tmpdir(), 'pw-drop-enter-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {
        STAND_IN_WORK_MS: '300',
        STAND_IN_DROP_ENTER_MS: '700',
        STAND_IN_DROP_LOG: join(dir, 'dropped.log'),
      },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.3 },
      profiles: { stand_in: profile },
    });
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'd1' });
    await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.readiness.status === 'ready'),
        timeout(15_000),
      ),
    );
    return id;
  }

  it('presses Enter once more when the typed prompt still sits in a box the profile cannot place', async () => {
    const id = await start(unplacingProfile());
    const result = await sup!.runTurn(id, 'say hello', { timeoutMs: 12_000 });
    expect(result.lastTurn.result).toBe('success');
    // Submitted once: one turn, the prompt whole.
    expect(await agent!.capture()).toMatch(/● reply 1: say hello\n/);
    expect(await agent!.capture()).not.toMatch(/reply 2/);
    expect(readFileSync(join(dir!, 'dropped.log'), 'utf8')).toBe('dropped\n');
  }, 60_000);

  it("waits the profile's submit pause, so the first Enter is taken", async () => {
    const id = await start(unplacingProfile({ submitDelayMs: 900 }));
    const result = await sup!.runTurn(id, 'say hello', { timeoutMs: 12_000 });
    expect(result.lastTurn.result).toBe('success');
    expect(await agent!.capture()).toMatch(/● reply 1: say hello\n/);
    expect(existsSync(join(dir!, 'dropped.log'))).toBe(false);
  }, 60_000);
});
