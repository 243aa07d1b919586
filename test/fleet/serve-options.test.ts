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
    ] as const) {
      await expect(startServe({ ...opts }), JSON.stringify(opts)).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(new RegExp(`\`${field}\`[^]*${words.source}`)),
      });
    }
  });
});
