import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { createClaudeCodeProfile } from '../../../src/profiles/claude_code/index.js';
import type { ProfileFactory, ToolProfile } from '../../../src/profiles/types.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import {
  startAgentSession,
  uniqueSocketName,
  type AgentSession,
} from '../../e2e/harness/session.js';

const AGENT = fileURLToPath(new URL('./dialog-agent.mjs', import.meta.url));

/** A CLI's reading of the screen at `version`, for a process named as the stand-in. */
export function standInReading(make: ProfileFactory, version: string): ProfileFactory {
  return () => ({ ...make(version), id: 'dialog_stand_in', processNames: ['dialog-agent'] });
}

/** Claude Code's reading, the stand-in's unless a test says otherwise. */
const dialogProfile = standInReading(createClaudeCodeProfile, '2.1.332');

export interface DialogStandIn {
  id: string;
  sup: Supervisor;
  session: AgentSession;
  /** The question the stand-in's dialog was read as, once it was. */
  question: NonNullable<TerminalState['surface']['question']>;
  /** Every key the stand-in received, one JSON string per key, in order. */
  typed(): string[];
  close(): Promise<void>;
}

/**
 * The stand-in CLI of `dialog-agent.mjs` (it draws a Claude Code permission dialog) in a pane of
 * its own tmux server, supervised with the Claude Code profile; resolves once its dialog reads as
 * a question. `env` goes to the stand-in (`DIALOG_STUCK`, `DIALOG_SWAP`, ...).
 */
export async function startDialogStandIn(o: {
  env?: Record<string, string>;
  pollIntervalSeconds: number;
  id?: string;
  /** The profile that reads it (Claude Code 2.1.332 unless said). */
  profile?: ProfileFactory;
  /** The Claude Code profile's settle time before an answer, replaced (0: none). */
  answerSettleMs?: number;
  /** The profile's close waits per question kind (none unless said). */
  answerCloseMs?: ToolProfile['answerCloseMs'];
  /** The pane's size (100×30 unless said). */
  cols?: number;
  rows?: number;
}): Promise<DialogStandIn> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-answer-'));
  const keys = join(dir, 'keys');
  writeFileSync(keys, '');
  const session = await startAgentSession({
    socketName: uniqueSocketName('pw-answer'),
    cols: o.cols ?? 100,
    rows: o.rows ?? 30,
    cwd: dir,
    env: {},
    command: [
      'env',
      `DIALOG_KEYS=${keys}`,
      ...Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`),
      process.execPath,
      AGENT,
    ],
  });
  const sup = createSupervisor({
    socketName: session.socketName,
    dataDir: join(dir, 'data'),
    source: 'polling',
    profiles: {
      dialog_stand_in:
        o.profile ??
        (o.answerSettleMs === undefined && o.answerCloseMs === undefined
          ? dialogProfile
          : () => ({
              ...dialogProfile(),
              ...(o.answerSettleMs === undefined ? {} : { answerSettleMs: o.answerSettleMs }),
              ...(o.answerCloseMs === undefined ? {} : { answerCloseMs: o.answerCloseMs }),
            })),
    },
    config: { pollIntervalSeconds: o.pollIntervalSeconds },
  });
  const close = async () => {
    await sup.stop();
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const id = await sup.attach({
      target: session.target,
      tool: 'dialog_stand_in',
      ...(o.id ? { id: o.id } : {}),
    });
    const until = Date.now() + 15_000;
    while (sup.get(id).surface.question === null) {
      if (Date.now() > until)
        throw new Error(`no question: ${JSON.stringify(sup.get(id).surface)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const typed = () =>
      readFileSync(keys, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
    return { id, sup, session, question: sup.get(id).surface.question!, typed, close };
  } catch (error) {
    await close();
    throw error;
  }
}
