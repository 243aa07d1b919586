import { tmpdir } from 'node:os';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { chartSettingsOf } from '../../src/cli/chart-options.js';
import { registerServe } from '../../src/cli/serve.js';
import { ServeOptions } from '../../src/cli/serve-options.js';
import { registerWatch, WatchOptions } from '../../src/cli/watch.js';
import { AttachBody } from '../../src/schemas/operations/index.js';
import { createSupervisor } from '../../src/index.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe('chart options of serve and watch', () => {
  for (const [name, schema, base] of [
    ['watch', WatchOptions, { targets: ['s:0.0'] }],
    ['serve', ServeOptions, {}],
  ] as const) {
    it(`${name}: every chart setting can be given, as the supervisor's config`, () => {
      const o = schema.parse({
        ...base,
        stallMode: 'gap',
        stallTimeout: '12',
        stalledIsTerminal: true,
        settle: '2',
        stability: '0.5',
        staleActive: '9',
      });
      expect(chartSettingsOf(o)).toEqual({
        stallMode: 'gap',
        stallTimeoutSeconds: 12,
        stalledIsTerminal: true,
        settleSeconds: 2,
        stabilitySeconds: 0.5,
        staleActiveSeconds: 9,
      });
      expect(chartSettingsOf(schema.parse(base))).toEqual({});
    });

    it(`${name}: bad values are refused naming the option`, () => {
      expect(messages(schema.safeParse({ ...base, stallMode: 'sometimes' }))).toEqual([
        '--stall-mode must be continuous or gap',
      ]);
      expect(messages(schema.safeParse({ ...base, stallTimeout: 'soon' }))).toEqual([
        '--stall-timeout must be a number of seconds',
      ]);
      expect(messages(schema.safeParse({ ...base, stallTimeout: '0' }))).toEqual([
        '--stall-timeout must be more than 0 seconds',
      ]);
      expect(messages(schema.safeParse({ ...base, stallTimeout: '86401' }))).toEqual([
        '--stall-timeout must be at most 86400 seconds',
      ]);
      expect(messages(schema.safeParse({ ...base, settle: '-1' }))).toEqual([
        '--settle must not be negative',
      ]);
      expect(messages(schema.safeParse({ ...base, stability: '3601' }))).toEqual([
        '--stability must be at most 3600 seconds',
      ]);
      expect(messages(schema.safeParse({ ...base, staleActive: '1' }))).toEqual([
        '--stale-active must be longer than the settle window (1 s)',
      ]);
      expect(messages(schema.safeParse({ ...base, settle: '5', staleActive: '5' }))).toEqual([
        '--stale-active must be longer than the settle window (5 s)',
      ]);
    });

    it(`${name}: the command line has the flags`, () => {
      const program = new Command();
      (name === 'watch' ? registerWatch : registerServe)(program);
      const flags = program.commands[0]!.options.map((o) => o.long);
      expect(flags).toEqual(
        expect.arrayContaining([
          '--stall-mode',
          '--stall-timeout',
          '--stalled-is-terminal',
          '--settle',
          '--stability',
          '--stale-active',
        ]),
      );
    });
  }
});

describe('serve --fleet', () => {
  it('refuses chart options: a fleet server observes no pane', () => {
    const r = ServeOptions.safeParse({
      fleet: true,
      nats: 'nats://127.0.0.1:4222',
      settle: '2',
      stalledIsTerminal: true,
    });
    expect(messages(r)).toEqual([
      '--stalled-is-terminal cannot be combined with --fleet (a fleet server has no panes of its own)',
      '--settle cannot be combined with --fleet (a fleet server has no panes of its own)',
    ]);
  });
});

describe('chart settings of the attach call', () => {
  it('POST /v1/terminals takes them, bounded, naming the field', () => {
    const ok = AttachBody.safeParse({
      target: 's:0.0',
      config: { stallMode: 'gap', stallTimeoutSeconds: 5, staleActiveSeconds: 8 },
    });
    expect(ok.success).toBe(true);
    const bad = AttachBody.safeParse({ target: 's:0.0', config: { stallTimeoutSeconds: 1e12 } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['config', 'stallTimeoutSeconds']);
    const unknown = AttachBody.safeParse({ target: 's:0.0', config: { settle: 1 } });
    expect(unknown.success).toBe(false);
  });

  it('the supervisor refuses a stale-active window not longer than the settle window, before attaching', async () => {
    // `attach` checks the pane: a real one, running a plain `cat`.
    const pane = await startAgentSession({
      socketName: uniqueSocketName('chart'),
      sessionName: 's',
      cwd: tmpdir(),
      env: {},
      command: ['cat'],
    });
    const sup = createSupervisor({
      dataDir: null,
      socketName: pane.socketName,
      config: { settleSeconds: 2 },
    });
    try {
      await expect(
        sup.attach({ target: 's:0.0', tool: 'claude_code', config: { staleActiveSeconds: 2 } }),
      ).rejects.toThrow(
        /field `config.staleActiveSeconds`: must be longer than the settle window \(2 s\)/,
      );
      expect(sup.ids()).toEqual([]);
      // The terminal's own settle window counts.
      const id = await sup.attach({
        target: 's:0.0',
        tool: 'claude_code',
        config: { settleSeconds: 0.5, staleActiveSeconds: 2 },
      });
      await sup.journal.flush();
      const attached = sup.journal.read().find((r) => r.kind === 'terminal.attached');
      expect(attached).toMatchObject({
        terminalId: id,
        config: { settleSeconds: 0.5, staleActiveSeconds: 2 },
      });
    } finally {
      await sup.stop();
      await pane.close();
    }
  });

  it('a supervisor whose own windows conflict is refused', () => {
    expect(() =>
      createSupervisor({ dataDir: null, config: { settleSeconds: 3, staleActiveSeconds: 2 } }),
    ).toThrow(/config.staleActiveSeconds/);
  });
});
