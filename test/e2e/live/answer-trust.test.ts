/**
 * Answering a folder-trust question, live: the real CLI starts in a fresh home where its working
 * folder is not trusted, so it asks first. paneward reads the dialog as a `trust_folder` question
 * (naming the folder where the dialog draws it) and answers `trust` with the CLI's own keys; the
 * CLI then reaches its prompt and a prompt round-trips through the loopback model server (a
 * success). Nothing reached the model before the answer, and the CLI's own config records the
 * trust after it. Two refusals: Claude Code's `exit` (the CLI quits and its pane closes) and
 * Gemini CLI's `dont_trust` (it goes on in its restricted mode, records the refusal, and still
 * answers prompts). Claude Code, Codex, Gemini CLI, Copilot CLI and Qwen Code ask.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { copilotAgent } from '../../../src/tooling/agents/copilot.js';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { qwenCodeAgent } from '../../../src/tooling/agents/qwen_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import type { LiveTrustCase, ClaudeConfig } from './answer-trust-suite.js';
import {
  startRun,
  scratchOf,
  readJson,
  trustQuestion,
  describeLiveTrust,
} from './answer-trust-suite.js';

const claudeCode: LiveTrustCase = {
  tool: 'claude_code',
  label: 'Claude Code',
  bin: CLAUDE_CODE_BIN,
  protocol: anthropicProtocol,
  prepare: async ({ scratch, work, serverUrl }) =>
    prepareClaudeCode({
      home: join(scratch, 'home'),
      cwd: work,
      baseUrl: serverUrl,
      trustFolder: false,
      maxRetries: 0,
    }),
  choices: ['exit', 'trust'],
  namesFolder: true,
  trustRecord: (scratch, work) =>
    (readJson(join(scratch, 'home', '.claude.json')) as ClaudeConfig).projects?.[work]
      ?.hasTrustDialogAccepted,
  trustedRecord: true,
  startupTimeoutMs: 60_000,
};

describeLiveTrust(claudeCode, (c) => {
  it('exit: the CLI quits, never having spoken to the model, and its pane closes', async () => {
    const scratch = join(scratchOf(c), 'exit');
    const r = await startRun(c, scratch);
    try {
      const question = await trustQuestion(r, c);
      await expect(
        r.sup.answer(r.id, { questionId: question.id, choice: 'exit' }),
      ).resolves.toMatchObject({ closed: true, choice: 'exit' });
      const seenFrom = Math.max(0, r.timeline.seen.length - 1);
      // Claude Code draws its exit, a failed readiness with no question left; the CLI was the
      // pane's only process, so the pane (and its tmux session) then closes: unavailable.
      const { s } = await r.timeline.waitFor(
        'the exit drawn',
        (x) => x.surface.uiContext === 'exited' || x.diagnostics.availability === 'unavailable',
        { from: seenFrom, timeoutMs: 30_000 },
      );
      expect(s.readiness.status).toBe('failed');
      expect(s.surface.question).toBeNull();
      await r.timeline.waitFor(
        'the pane gone',
        (x) => x.diagnostics.availability === 'unavailable',
        {
          from: seenFrom,
          timeoutMs: 30_000,
        },
      );
      expect(r.sup.get(r.id).readiness.status).toBe('failed');
      expect(r.server.log().filter((e) => e.streaming)).toHaveLength(0);
      expect(c.trustRecord(scratch, resolve(r.work))).not.toBe(c.trustedRecord);
    } finally {
      await r.close();
    }
  }, 120_000);
});

describeLiveTrust({
  tool: 'codex',
  label: 'Codex',
  bin: codexAgent.bin,
  protocol: openaiProtocol,
  prepare: async ({ scratch, work, serverUrl }) => {
    const launch = prepareCodex({
      scratchDir: scratch,
      workDir: work,
      serverUrl,
      retries: 0,
      trusted: false,
      daemonPackages: await installedDaemonPackages(),
    });
    // Codex asks only about a folder in a git repository (elsewhere it starts at its prompt), and
    // then trusts the repository's root: the folder is made a repository of its own.
    execFileSync('git', ['init', '-q', work]);
    return launch;
  },
  cleanup: (scratch) => stopCodexDaemons(scratch),
  choices: ['trust', 'back'],
  namesFolder: true,
  trustRecord: (scratch, work) => {
    const toml = readFileSync(join(scratch, 'home', '.codex', 'config.toml'), 'utf8');
    const at = toml.indexOf(`[projects.${JSON.stringify(work)}]\n`);
    return at < 0 ? undefined : /^trust_level = "(\w+)"/m.exec(toml.slice(at))?.[1];
  },
  trustedRecord: 'trusted',
  startupTimeoutMs: 60_000,
});

const geminiCli: LiveTrustCase = {
  tool: 'gemini_cli',
  label: 'Gemini CLI',
  bin: geminiCliAgent.bin,
  protocol: geminiProtocol,
  prepare: async ({ scratch, work, serverUrl }) =>
    prepareGeminiCli({
      cwd: work,
      home: join(scratch, 'home'),
      baseUrl: serverUrl,
      maxAttempts: 1,
      trusted: false,
      // Trusting the folder restarts Gemini CLI through its launcher; without one it just exits.
      relaunch: true,
    }),
  restartsOnTrust: true,
  // `Do you trust the files in this folder?` names no folder: the question has no subject.
  choices: ['trust', 'trust_parent', 'dont_trust'],
  namesFolder: false,
  trustRecord: (scratch, work) =>
    (readJson(join(scratch, 'home', '.gemini', 'trustedFolders.json')) as Record<string, unknown>)[
      work
    ],
  trustedRecord: 'TRUST_FOLDER',
  startupTimeoutMs: 60_000,
};

describeLiveTrust(geminiCli, (c) => {
  it('dont_trust: the CLI stays, untrusted, and still answers prompts', async () => {
    const scratch = join(scratchOf(c), 'dont');
    const r = await startRun(c, scratch);
    try {
      const question = await trustQuestion(r, c);
      await expect(
        r.sup.answer(r.id, { questionId: question.id, choice: 'dont_trust' }),
      ).resolves.toMatchObject({ closed: true, choice: 'dont_trust' });
      const seenFrom = Math.max(0, r.timeline.seen.length - 1);
      await r.timeline.waitFor(
        'ready',
        (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready',
        { from: seenFrom, timeoutMs: c.startupTimeoutMs },
      );
      expect(r.sup.get(r.id).surface.question).toBeNull();
      // Gemini CLI goes on in its restricted mode: its footer's sandbox column reads `untrusted`
      // (its `This folder is untrusted` notice comes late or not at all); its config keeps the
      // refusal.
      await r.session.waitForText(/ untrusted +gemini-/, 20_000);
      expect(c.trustRecord(scratch, resolve(r.work))).toBe('DO_NOT_TRUST');
      r.server.enqueue({ text: 'Answering from an untrusted folder.', chunkDelayMs: 50 });
      const result = await r.sup.runTurn(r.id, 'say something', { timeoutMs: 60_000 });
      expect(
        result.lastTurn.result,
        `${r.timeline.describe(seenFrom)}\n${await r.session.capture()}`,
      ).toBe('success');
      expect(r.server.log().filter((e) => e.streaming)).toHaveLength(1);
    } finally {
      await r.close();
    }
  }, 150_000);
});

/** A JSON file the CLI writes, or undefined while it has not. */
const readJsonIfAny = (file: string): unknown => (existsSync(file) ? readJson(file) : undefined);

/** Copilot CLI's config.json, which it writes with `//` comment lines above the JSON. */
const readCopilotConfig = (file: string): { trustedFolders?: string[] } | undefined =>
  existsSync(file)
    ? (JSON.parse(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => !/^\s*\/\//.test(l))
          .join('\n'),
      ) as { trustedFolders?: string[] })
    : undefined;

describeLiveTrust({
  tool: 'copilot',
  label: 'Copilot CLI',
  bin: copilotAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: async ({ scratch, work, serverUrl }) =>
    copilotAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'capped', fresh: true }),
  choices: ['trust', 'trust_always', 'dont_trust'],
  // `Yes` trusts the folder for this session only; the config keeps the one that remembers it.
  trustChoice: 'trust_always',
  namesFolder: true,
  trustRecord: (scratch, work) =>
    readCopilotConfig(join(scratch, 'home', '.copilot', 'config.json'))?.trustedFolders?.includes(
      work,
    ) ?? false,
  trustedRecord: true,
  startupTimeoutMs: copilotAgent.startupTimeoutMs,
});

describeLiveTrust({
  tool: 'qwen_code',
  label: 'Qwen Code',
  bin: qwenCodeAgent.bin,
  protocol: chatCompletionsProtocol,
  prepare: async ({ scratch, work, serverUrl }) =>
    qwenCodeAgent.prepare({ scratch, workDir: work, serverUrl, retries: 'capped', fresh: true }),
  // Trusting the folder relaunches Qwen Code through its launcher (exit code 42).
  restartsOnTrust: true,
  choices: ['trust', 'trust_parent', 'dont_trust'],
  namesFolder: false,
  trustRecord: (scratch, work) =>
    (
      readJsonIfAny(join(scratch, 'home', '.qwen', 'trustedFolders.json')) as
        Record<string, unknown> | undefined
    )?.[work],
  trustedRecord: 'TRUST_FOLDER',
  startupTimeoutMs: qwenCodeAgent.startupTimeoutMs,
});
