// Answering a question through the fleet: a host's edge runs the `answer` command through its own
// supervisor, on a real nats-server and real tmux panes of a stand-in CLI that draws a Claude Code
// permission dialog (read by the Claude Code profile). The fleet server's route and
// `paneward answer` against it; the refusals keep their codes across the wire, a key is typed
// once, and the host's journal says the answer came through the fleet, from which client.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PanewardError } from '../../src/errors.js';
import { checkSignature } from '../../src/fleet/auth.js';
import { FleetEdge } from '../../src/fleet/edge.js';
import { commandSubject, HOSTS_BUCKET, STATE_BUCKET, stateKey } from '../../src/fleet/names.js';
import { CommandRequest, type Heartbeat, type StateEntry } from '../../src/fleet/schemas.js';
import { describeZodError } from '../../src/internal/zod-errors.js';
import { FleetView } from '../../src/fleet/view.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createClaudeCodeProfile } from '../../src/profiles/claude_code/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { standInReading } from '../terminal/internal/dialog-stand-in.js';
import { BIN, freePort, NatsServer, until } from './internal/harness.js';

const AGENT = fileURLToPath(new URL('../terminal/internal/dialog-agent.mjs', import.meta.url));
const dialogProfile = standInReading(createClaudeCodeProfile, '2.1.332');
const LIMITS = { duplicateWindowSeconds: 1 };
const FLEET_TOKEN = 'fleet-answer-signing-token-0123456789';
const HTTP_TOKEN = 'fleet-answer-bearer-token-0123456789';
const TOKEN_ID = `tok-${createHash('sha256').update(HTTP_TOKEN).digest('hex').slice(0, 8)}`;
const enc = encodeURIComponent;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('answering a question through the fleet', () => {
  let dir: string;
  let nats: NatsServer;
  const panes: AgentSession[] = [];
  let sup: Supervisor;
  let edge: FleetEdge;
  let view: FleetView;
  let http: HttpApp;
  let server: Server;
  let url: string;
  /** The keys each stand-in received, one JSON string a line. */
  const keysOf = (name: string) => join(dir, `${name}.keys`);
  const typed = (name: string) =>
    readFileSync(keysOf(name), 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  const post = async (id: string, body: unknown) => {
    const res = await fetch(`${url}/v1/terminals/${enc(id)}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${HTTP_TOKEN}` },
      body: JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
    return { status: res.status, body: (await res.json()) as any };
  };
  const cli = (...args: string[]) =>
    new Promise<CliRun>((resolve) => {
      // Not execFileSync: the fleet server answering it lives in this process.
      execFile(
        process.execPath,
        [BIN, ...args, '--url', url, '--token-file', join(dir, 'http.token')],
        { encoding: 'utf8', timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      );
    });
  const answeredOnHost = (id: string) =>
    sup.history(id, 200).filter((r) => r.kind === 'question.answered');
  const question = async (id: string) =>
    until(
      `a question on ${id} in the fleet`,
      async () => view.get(id).surface.question ?? undefined,
      20_000,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-answer-'));
    writeFileSync(join(dir, 'http.token'), HTTP_TOKEN);
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    const socketName = uniqueSocketName('fleet-answer');
    // d1 closes its dialog on a digit; d2 keeps it drawn whatever it is sent.
    for (const [name, env] of [
      ['d1', []],
      ['d2', ['DIALOG_STUCK=1']],
    ] as const) {
      writeFileSync(keysOf(name), '');
      panes.push(
        await startAgentSession({
          socketName,
          sessionName: name,
          cols: 100,
          rows: 30,
          cwd: dir,
          env: {},
          command: ['env', `DIALOG_KEYS=${keysOf(name)}`, ...env, process.execPath, AGENT],
        }),
      );
    }
    sup = createSupervisor({
      socketName,
      dataDir: join(dir, 'data'),
      source: 'polling',
      profiles: { dialog_stand_in: dialogProfile },
      config: { pollIntervalSeconds: 0.25 },
    });
    for (const [i, name] of ['d1', 'd2'].entries()) {
      await sup.attach({ target: panes[i]!.target, tool: 'dialog_stand_in', id: name });
    }
    edge = new FleetEdge({
      supervisor: sup,
      nats: nats.url,
      hostId: 'host-a',
      limits: LIMITS,
      token: FLEET_TOKEN,
    });
    view = new FleetView({ nats: nats.url, limits: LIMITS, token: FLEET_TOKEN });
    await view.ready();
    http = createHttpApp(view, { token: HTTP_TOKEN });
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await until(
      'host-a reachable in the fleet',
      async () =>
        view.hostViews().some((h) => h.id === 'host-a' && h.reachable) ? true : undefined,
      15_000,
    );
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    http?.close();
    await view?.stop();
    await edge?.stop();
    await sup?.stop();
    await panes[0]?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('refuses a forged id and an unknown choice with their own codes; nothing is typed', async () => {
    const q = await question('host-a/d1');
    expect(q.subject).toBe('touch paneward-approved.txt');
    expect(q.choices.map((c) => c.id)).toEqual(['allow_once', 'allow_always', 'deny']);
    // The state the fleet serves lets the dashboard draw the buttons.
    const state = await (
      await fetch(`${url}/v1/terminals/${enc('host-a/d1')}`, {
        headers: { authorization: `Bearer ${HTTP_TOKEN}` },
      })
    ).json();
    expect(state.operations.answer.allowed).toBe('yes');

    // Checked on the host, by its supervisor: the same code and sentence as a local answer.
    const forged = await post('host-a/d1', { questionId: 'q-0123456789ab', choice: 'allow_once' });
    expect(forged.status).toBe(409);
    expect(forged.body.error).toMatchObject({
      code: 'refused',
      message: expect.stringContaining(`the question on screen is ${q.id}, not q-0123456789ab`),
    });
    const unknown = await post('host-a/d1', { questionId: q.id, choice: 'yes' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 'invalid_input',
      message: 'choice: "yes" is not one of allow_once, allow_always, deny',
    });
    // Checked by the fleet server before anything is sent: the field is named.
    const malformed = await post('host-a/d1', { questionId: q.id, choice: 'Yes!' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_input');
    expect(malformed.body.error.message).toContain('choice');
    const nowhere = await post('host-a/nope', { questionId: q.id, choice: 'deny' });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.error.code).toBe('unknown_terminal');
    // The CLI says the same, with its exit code for invalid input.
    const bad = await cli('answer', 'host-a/d1', 'yes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('choice: "yes" is not one of allow_once, allow_always, deny');

    expect(typed('d1')).toEqual([]);
    expect(answeredOnHost('d1')).toEqual([]);
  }, 60_000);

  it('`paneward answer` against the fleet server types the key once; the host journals it as the fleet', async () => {
    const q = await question('host-a/d1');
    const run = await cli('answer', 'host-a/d1', 'deny');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${q.id} tool_permission: deny`);
    // `deny` is option 3 of this dialog: its digit, once.
    await new Promise((r) => setTimeout(r, 1000));
    expect(typed('d1')).toEqual(['"3"']);
    expect(answeredOnHost('d1')).toMatchObject([
      {
        questionId: q.id,
        questionKind: 'tool_permission',
        choice: 'deny',
        outcome: 'closed',
        by: { via: 'fleet', client: 'cli', tokenId: TOKEN_ID },
      },
    ]);
    // The record reaches the fleet's stream as the host wrote it.
    const seen = await until(
      'the answer in the fleet history',
      async () => {
        const h = await view.history('host-a/d1', 200);
        const r = h.filter((x) => x.kind === 'question.answered');
        return r.length > 0 ? r : undefined;
      },
      15_000,
    );
    expect(seen).toMatchObject([{ by: { via: 'fleet', client: 'cli' }, choice: 'deny' }]);
  }, 60_000);

  it('no question on screen: refused through the route and the CLI, nothing more typed', async () => {
    await until(
      'd1 asks no question in the fleet',
      async () => (view.get('host-a/d1').surface.question === null ? true : undefined),
      15_000,
    );
    const q = answeredOnHost('d1')[0] as { questionId: string };
    const again = await post('host-a/d1', { questionId: q.questionId, choice: 'allow_once' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'refused',
      message: expect.stringContaining('no question waits'),
    });
    const run = await cli('answer', 'host-a/d1', 'allow_once', '--question', q.questionId);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('no question waits');
    expect(typed('d1')).toEqual(['"3"']);
    expect(answeredOnHost('d1')).toHaveLength(1);
  }, 60_000);

  it('an edge older than the answer command: 501 unsupported, saying to upgrade it; sent once, nothing typed', async () => {
    // host-old runs a paneward from before `answer`: its commands, read as its responder read
    // them (the signature first, then its union of the commands it knew), over real NATS.
    const OldCommand = z.discriminatedUnion(
      'op',
      CommandRequest.options.filter((o) => o.shape.op.value !== 'answer') as unknown as [
        (typeof CommandRequest.options)[number],
      ],
    );
    const nc: NatsConnection = await connect({ servers: nats.url });
    const asked: string[] = [];
    const replies: unknown[] = [];
    nc.subscribe(commandSubject('host-old'), {
      callback: (_err, msg) => {
        asked.push(msg.string());
        const why = checkSignature(FLEET_TOKEN, msg.subject, msg.string(), msg.headers);
        const parsed = OldCommand.safeParse(msg.json());
        const reply =
          why !== null
            ? { ok: false, error: new PanewardError('unauthorized', why).toJSON() }
            : parsed.success
              ? { ok: false, error: new PanewardError('internal', 'not in this test').toJSON() }
              : {
                  ok: false,
                  error: new PanewardError(
                    'invalid_input',
                    `command: ${describeZodError(parsed.error)}`,
                    { details: parsed.error.issues },
                  ).toJSON(),
                };
        replies.push(reply);
        msg.respond(JSON.stringify(reply));
      },
    });
    // Its heartbeat and a terminal showing a question (the state of a real one), in the buckets.
    const kvm = new Kvm(nc);
    const beat: Heartbeat = {
      host: 'host-old',
      pid: process.pid,
      startedAt: Date.now(),
      at: Date.now(),
      terminals: 1,
      durableSeq: 0,
      publishedSeq: 0,
      observer: null,
    };
    const hosts = await kvm.open(HOSTS_BUCKET);
    const beating = setInterval(
      () => void hosts.put('host-old', JSON.stringify({ ...beat, at: Date.now() })),
      2000,
    );
    await hosts.put('host-old', JSON.stringify(beat));
    const shown = sup.get('d2');
    expect(shown.surface.question).not.toBeNull();
    const entry: StateEntry = { host: 'host-old', terminalId: 'o1', at: Date.now(), state: shown };
    await (await kvm.open(STATE_BUCKET)).put(stateKey('host-old', 'o1'), JSON.stringify(entry));
    try {
      const q = await question('host-old/o1');
      const before = [typed('d1'), typed('d2')];
      const r = await post('host-old/o1', { questionId: q.id, choice: 'deny' });
      // What the old edge said: a schema error on `op`, which the fleet does not pass on as is.
      expect(replies).toHaveLength(1);
      expect(replies[0]).toMatchObject({
        ok: false,
        error: { code: 'invalid_input', message: expect.stringMatching(/^command: field `op`/) },
      });
      expect(r.status).toBe(501);
      expect(r.body.error).toMatchObject({
        code: 'unsupported',
        message:
          'host host-old runs a paneward that cannot answer questions (it does not know the answer command; nothing was run): upgrade paneward on that host',
      });
      // The CLI: the same sentence, and the exit code of a refusal (nothing ran).
      const run = await cli('answer', 'host-old/o1', 'deny');
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('host host-old runs a paneward that cannot answer questions');
      // Each asked once (never sent again), and no key typed anywhere.
      expect(asked).toHaveLength(2);
      expect(asked.map((a) => (JSON.parse(a) as { op: string }).op)).toEqual(['answer', 'answer']);
      expect([typed('d1'), typed('d2')]).toEqual(before);
    } finally {
      clearInterval(beating);
      await nc.close();
    }
  }, 60_000);

  it('a dialog still drawn after the keys: answer_failed across the wire, typed once', async () => {
    const q = await question('host-a/d2');
    const r = await post('host-a/d2', { questionId: q.id, choice: 'allow_once', via: 'dashboard' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('answer_failed');
    await new Promise((r) => setTimeout(r, 1000));
    expect(typed('d2')).toEqual(['"1"']);
    expect(answeredOnHost('d2')).toMatchObject([
      {
        questionId: q.id,
        choice: 'allow_once',
        outcome: 'still_open',
        by: { via: 'fleet', client: 'dashboard', tokenId: TOKEN_ID },
      },
    ]);
  }, 60_000);
});
