import { afterEach, describe, expect, it } from 'vitest';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '{}';
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

const turnBody = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-opus-5-5',
  stream: true,
  max_tokens: 1000,
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

async function post(server: FakeModelServer, path: string, body: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('anthropic fake protocol', () => {
  let server: FakeModelServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('streams a plan as Messages API events with chunk pauses', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    server.enqueue({
      text: 'one two three',
      chunkDelayMs: 5,
      pauses: [{ afterChunk: 0, ms: 150 }],
    });
    const started = Date.now();
    const res = await post(server, '/v1/messages', turnBody());
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(res.status).toBe(200);
    expect(res.type).toContain('text/event-stream');
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data.delta as { text: string }).text)
      .join('');
    expect(text).toBe('one two three');
    expect((events[6]!.data.delta as { stop_reason: string }).stop_reason).toBe('end_turn');
    const [entry] = server.log();
    expect(entry).toMatchObject({ outcome: 'completed', streaming: true, status: 200 });
  });

  it('ends a tool call with input_json_delta parts and stop_reason tool_use', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const input = { command: 'touch x.txt', description: 'make a file' };
    server.enqueue({ text: '', chunkDelayMs: 0, toolUse: { name: 'Bash', input, id: 'toolu_1' } });
    const events = parseSse((await post(server, '/v1/messages', turnBody())).text);
    const start = events.find((e) => e.event === 'content_block_start')!;
    expect(start.data.content_block).toMatchObject({
      type: 'tool_use',
      name: 'Bash',
      id: 'toolu_1',
    });
    const json = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data.delta as { type: string; partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual(input);
    const delta = events.find((e) => e.event === 'message_delta')!;
    expect((delta.data.delta as { stop_reason: string }).stop_reason).toBe('tool_use');
  });

  it('answers errors with the API error JSON and status', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    server.enqueue({ error: { status: 529 } }, { error: { status: 429 } });
    const overloaded = await post(server, '/v1/messages', turnBody());
    expect(overloaded.status).toBe(529);
    expect(JSON.parse(overloaded.text)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const limited = await post(server, '/v1/messages', turnBody());
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text).error.type).toBe('rate_limit_error');
    expect(server.log().map((e) => e.outcome)).toEqual(['error', 'error']);
  });

  it('keeps side requests without tools from consuming turn plans', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    server.enqueue({ error: { status: 500 } });
    const side = await post(server, '/v1/messages', turnBody({ tools: undefined, stream: false }));
    expect(side.status).toBe(200);
    expect(JSON.parse(side.text).content[0].type).toBe('text');
    const turn = await post(server, '/v1/messages', turnBody());
    expect(turn.status).toBe(500);
    expect(JSON.parse(turn.text).error.type).toBe('api_error');
  });

  it('plays a hang: the stream starts and only ends when the client goes away', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify(turnBody()),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('message_start');
    await new Promise((r) => setTimeout(r, 100));
    expect(server.log()[0]!.endedAt).toBeNull();
    controller.abort();
    const [entry] = await server.waitFor(() => true, { timeoutMs: 2000 });
    expect(entry!.outcome).toBe('hung');
  });

  it('reports the input usage a plan asks for in message_start', async () => {
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    server.enqueue({ text: 'ok', usage: { inputTokens: 985_000 } });
    const planned = parseSse((await post(server, '/v1/messages', turnBody())).text);
    const after = parseSse((await post(server, '/v1/messages', turnBody())).text);
    const inputOf = (events: typeof planned) =>
      (
        events.find((e) => e.event === 'message_start')!.data.message as {
          usage: { input_tokens: number };
        }
      ).usage.input_tokens;
    expect(inputOf(planned)).toBe(985_000);
    // The next request has no plan left: the usual small usage.
    expect(inputOf(after)).toBe(12);
  });
});
