/**
 * One pane is one terminal, whatever it was called: a pane attached by its window's name is
 * not attached again by discovery (which names panes `%N`), nor by a second attach under
 * another name, also after the supervisor restarted on the same data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

let agent: AgentSession;
let dir: string;
let paneId: string;
const open: Supervisor[] = [];

const supervisor = () => {
  const sup = createSupervisor({
    socketName: agent.socketName,
    dataDir: join(dir, 'data'),
    config: { pollIntervalSeconds: 0.1 },
    profiles: { stand_in: standInProfile },
  });
  open.push(sup);
  return sup;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pw-one-pane-'));
  agent = await startAgentSession({
    cwd: dir,
    env: {},
    command: [process.execPath, STAND_IN_AGENT],
    sessionName: 'agents',
  });
  await agent.waitForText(/❯/);
  await agent.transport.run(['rename-window', '-t', agent.target, 'main']);
  paneId = (
    await agent.transport.run(['display-message', '-p', '-t', agent.target, '#{pane_id}'])
  ).trim();
});

afterAll(async () => {
  for (const sup of open) await sup.stop().catch(() => {});
  await agent?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("a pane attached by its window's name is neither discovered again nor attached twice, before and after a restart", async () => {
  const first = supervisor();
  // By the window's name: neither the pane's id nor the `session:index.pane` discovery lists.
  const id = await first.attach({ target: 'agents:main.0' });
  expect(await first.discover()).toEqual([]);
  expect(await first.attach({ target: paneId })).toBe(id);
  expect(first.ids()).toEqual([id]);
  await first.stop();

  const second = supervisor();
  expect(second.ids()).toEqual([id]);
  expect(await second.discover()).toEqual([]);
  expect(await second.attach({ target: agent.target })).toBe(id);
  await expect(second.attach({ target: paneId, id: 'other' })).rejects.toThrow(
    `attach: field \`target\`: pane ${paneId} is already attached as ${id} (stand_in)`,
  );
  expect(second.ids()).toEqual([id]);
});
