/**
 * The live check every session-record reader gets: two panes of the same CLI, same home, same
 * folder, started one after the other against the loopback model server; the second pane is
 * prompted first. Each pane's `locate`, with a context read from `/proc` of the CLI process in
 * that pane, must find the record holding its own prompt and never the other's.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecordReader } from '../../../src/profiles/session-record.js';
import type { AgentLaunch } from '../../../src/tooling/agents/chat-agent.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Protocol,
} from '../../../src/tooling/model-server/server.js';
import {
  startAgentSession,
  uniqueSocketName,
  type AgentSession,
} from '../../e2e/harness/session.js';
import { contextFromProc } from './proc-context.js';

export interface TwoPanesCli {
  reader: SessionRecordReader;
  bin: string;
  /** Names of the CLI's process under the pane. */
  processNames: readonly string[];
  protocol: Protocol;
  launch(o: {
    scratch: string;
    workDir: string;
    serverUrl: string;
  }): AgentLaunch | Promise<AgentLaunch>;
  /** The prompt box is drawn and empty. */
  ready: RegExp;
  /** How long after `ready` before typing is taken (Codex draws its box before it listens). */
  settleMs: number;
  startupTimeoutMs: number;
  stopDaemons?(scratch: string): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function describeTwoPanes(cli: TwoPanesCli): void {
  const tool = cli.reader.tool;
  const missing = !existsSync(cli.bin);
  if (missing) console.warn(`live ${tool} session-record check skipped: ${cli.bin} is missing`);

  describe
    .skipIf(missing)
    .sequential(`${tool} session record, live: two panes in one folder`, () => {
      const scratch = resolve('.tmp/session-records-live', tool, String(process.pid));
      const workDir = join(scratch, 'work');
      let server: FakeModelServer;
      const panes: AgentSession[] = [];

      beforeAll(async () => {
        rmSync(scratch, { recursive: true, force: true });
        server = await startFakeModelServer({
          protocols: [cli.protocol],
          defaultPlan: { text: 'OK.', chunkDelayMs: 20 },
        });
      });

      afterAll(async () => {
        for (const pane of panes) await pane.close().catch(() => undefined);
        await cli.stopDaemons?.(scratch);
        await server?.close();
        if (!process.env.PANEWARD_KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
      });

      const open = async (launch: AgentLaunch) => {
        const pane = await startAgentSession({
          socketName: uniqueSocketName('pw-records'),
          cwd: launch.cwd,
          env: launch.env,
          command: launch.command,
          cols: 160,
          rows: 45,
        });
        panes.push(pane);
        return pane;
      };

      const ready = async (pane: AgentSession) => {
        await pane.waitForText(cli.ready, cli.startupTimeoutMs);
        await sleep(cli.settleMs);
        return pane;
      };

      const start = async (launch: AgentLaunch) => ready(await open(launch));

      const prompt = async (pane: AgentSession, text: string) => {
        await pane.sendText(text);
        await sleep(700);
        await pane.sendKeys('Enter');
      };

      /** Polls `locate` for the pane's CLI process until it finds a record holding `text`. */
      const located = async (pane: AgentSession, text: string, claimed: Set<string>) => {
        await pane.waitForProcess(cli.processNames, 10_000);
        // The process tmux started in the pane: the CLI (or its launcher), as the pane reports it.
        const pid = await pane.panePid();
        const deadline = Date.now() + 60_000;
        let file: string | null = null;
        while (Date.now() < deadline) {
          file = await cli.reader.locate(await contextFromProc(pid, claimed));
          if (file !== null && readFileSync(file, 'utf8').includes(text)) return file;
          await sleep(500);
        }
        return file;
      };

      it(
        'finds each pane’s own record, never the other’s',
        async () => {
          const launch = await cli.launch({ scratch, workDir, serverUrl: server.url });
          const first = await start(launch);
          const second = await start(launch);
          await prompt(second, 'second pane asks');
          await sleep(2_000);
          await prompt(first, 'first pane asks');

          const secondFile = await located(second, 'second pane asks', new Set());
          const firstFile = await located(first, 'first pane asks', new Set());
          expect(secondFile).not.toBeNull();
          expect(firstFile).not.toBeNull();
          expect(firstFile).not.toBe(secondFile);
          expect(readFileSync(firstFile!, 'utf8')).not.toContain('second pane asks');
          expect(readFileSync(secondFile!, 'utf8')).not.toContain('first pane asks');
          // Each still finds its own while the other pane follows the other record.
          expect(await located(first, 'first pane asks', new Set([secondFile!]))).toBe(firstFile);
          expect(await located(second, 'second pane asks', new Set([firstFile!]))).toBe(secondFile);
        },
        4 * cli.startupTimeoutMs + 180_000,
      );
    });
}
