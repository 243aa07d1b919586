import { describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve.js';

describe('serve: the fleet options', () => {
  it('refuses combinations that make no sense, naming the field', async () => {
    for (const [opts, field, words] of [
      [{ nats: 'nats://127.0.0.1:4222' }, 'hostId', /--host-id/],
      [{ hostId: 'h1' }, 'nats', /--nats/],
      [{ fleet: true }, 'nats', /--fleet needs --nats/],
      [{ fleet: true, nats: 'nats://127.0.0.1:4222', hostId: 'h1' }, 'hostId', /--fleet/],
      [{ nats: 'nats://127.0.0.1:4222', hostId: 'a.b' }, 'hostId', /letters/],
      [{ nats: 'http://x y', hostId: 'h1' }, 'nats', /NATS URL/],
      [{ profileModule: '/no/such/module.ts', port: 0 }, 'profileModule', /cannot load/],
      // A fleet server observes no pane: the options of one that does are mistakes.
      ...(
        [
          ['socketName', 'agents', '-L'],
          ['socketPath', '/tmp/tmux.sock', '-S'],
          ['dataDir', '/tmp/pw', '--data-dir'],
          ['profileModule', 'profiles.ts', '--profile-module'],
          ['pollInterval', '1', '--poll-interval'],
          ['sessionBudget', '60', '--session-budget'],
          ['source', 'polling', '--source'],
          ['verifiedOnly', true, '--verified-only'],
          ['inspect', true, '--inspect'],
        ] as const
      ).map(
        ([field, value, flag]) =>
          [
            { fleet: true, nats: 'nats://127.0.0.1:4222', [field]: value },
            field,
            new RegExp(`${flag} cannot be combined with --fleet`),
          ] as const,
      ),
    ] as const) {
      await expect(startServe({ ...opts }), JSON.stringify(opts)).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(new RegExp(`\`${field}\`[^]*${words.source}`)),
      });
    }
  });
});
