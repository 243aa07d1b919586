/**
 * The Claude Code sessions of its live suite: each started in a home of its own on the suite's
 * tmux socket, attached with a timeline of its states; and the turn requests the server saw.
 */
import { join } from 'node:path';
import type { Supervisor } from '../../../src/index.js';
import { prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import type { FakeModelServer, RequestLogEntry } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';
import { COLS, ROWS } from './live-agent.js';

/** What the suite has started before its tests, read when a session is started or attached. */
export interface ClaudeRun {
  server: FakeModelServer;
  sup: Supervisor;
}

/** Starts sessions on `socketName` under `SCRATCH` (into `sessions`) and attaches them. */
export function claudeSessions(
  SCRATCH: string,
  socketName: string,
  sessions: AgentSession[],
  timelines: Map<string, Timeline>,
  live: () => ClaudeRun,
) {
  const launchClaude = async (name: string, remainOnExit: boolean): Promise<AgentSession> => {
    const launch = prepareClaudeCode({
      home: join(SCRATCH, name, 'home'),
      cwd: join(SCRATCH, name, 'work'),
      baseUrl: live().server.url,
      permissionMode: 'default',
      maxRetries: 2,
    });
    const session = await startAgentSession({
      socketName,
      sessionName: name,
      cols: COLS,
      rows: ROWS,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
      remainOnExit,
    });
    sessions.push(session);
    return session;
  };

  const attach = async (session: AgentSession, tool: string): Promise<string> => {
    const { sup } = live();
    const id = await sup.attach({ target: session.target, tool });
    const timeline = new Timeline(() => session.capture());
    timelines.set(id, timeline);
    sup.state$(id).subscribe((s) => timeline.push(s));
    return id;
  };

  /** Turn requests (streaming, with tools) the server has seen since log index `from`. */
  const turnRequests = (from: number): RequestLogEntry[] =>
    live()
      .server.log()
      .slice(from)
      .filter((e) => e.streaming);

  return { launchClaude, attach, turnRequests };
}
