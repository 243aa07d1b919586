import { afterEach, describe, expect, it } from 'vitest';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';

interface SseEvent {
  event: string | null;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null;
      const data = lines.find((l) => l.startsWith('data: '))!.slice(6);
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

const post = (server: FakeModelServer, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('openai protocol (Responses API)', () => {
  it('streams text deltas with event lines, honouring chunk delays and pauses', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({
      chunks: ['Hel', 'lo', '!'],
      chunkDelayMs: 20,
      pauses: [{ afterChunk: 0, ms: 200 }],
    });
    const started = Date.now();
    const res = await post(server, { model: 'gpt-fake-1', stream: true, input: [] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await res.text());
    expect(Date.now() - started).toBeGreaterThanOrEqual(230);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    const deltas = events
      .filter((e) => e.event === 'response.output_text.delta')
      .map((e) => e.data.delta);
    expect(deltas.join('')).toBe('Hello!');
    const completed = events.at(-1)!.data.response as {
      status: string;
      usage: { total_tokens: number };
    };
    expect(completed.status).toBe('completed');
    expect(completed.usage.total_tokens).toBeGreaterThan(0);
    expect(server.log()[0]).toMatchObject({ outcome: 'completed', status: 200, streaming: true });
  });

  it('ends a turn with a function_call item for a tool use', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({ toolUse: { name: 'exec_command', input: { cmd: 'ls' }, id: 'call_1' } });
    const events = parseSse(await (await post(server, { stream: true })).text());
    const done = events
      .filter((e) => e.event === 'response.output_item.done')
      .map((e) => e.data.item);
    expect(done).toEqual([
      expect.objectContaining({
        type: 'function_call',
        name: 'exec_command',
        call_id: 'call_1',
        arguments: '{"cmd":"ls"}',
      }),
    ]);
    expect(events.some((e) => e.event === 'response.output_text.delta')).toBe(false);
  });

  it('answers an error plan with the HTTP status and OpenAI error JSON', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({ error: { status: 503 } }, { error: { status: 429 } });
    const overloaded = await post(server, { stream: true });
    expect(overloaded.status).toBe(503);
    expect(await overloaded.json()).toMatchObject({
      error: { code: 'server_is_overloaded', type: expect.any(String) },
    });
    const limited = await post(server, { stream: true });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(server.log().map((e) => e.outcome)).toEqual(['error', 'error']);
  });

  it('starts a hung stream and never completes it', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({ hang: true });
    const abort = new AbortController();
    const res = await post(server, { stream: true }, abort.signal);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: response.created');
    expect(server.log()[0]!.firstByteAt).not.toBeNull();
    expect(server.log()[0]!.endedAt).toBeNull();
    abort.abort();
    const [entry] = await server.waitFor(() => true, { timeoutMs: 2000 });
    expect(entry!.outcome).toBe('hung');
  });

  it('serves side requests (structured output) without consuming the turn plan', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({ text: 'the turn' });
    const title = parseSse(
      await (
        await post(server, { stream: true, text: { format: { type: 'json_schema' } } })
      ).text(),
    );
    const titleText = title
      .filter((e) => e.event === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');
    expect(JSON.parse(titleText)).toHaveProperty('title');
    const turn = parseSse(await (await post(server, { stream: true })).text());
    expect(
      turn
        .filter((e) => e.event === 'response.output_text.delta')
        .map((e) => e.data.delta)
        .join(''),
    ).toBe('the turn');
    expect(server.log().map((e) => e.streaming)).toEqual([false, true]);
  });

  it('lists models', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    const body = (await (await fetch(`${server.url}/v1/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(body.data.map((m) => m.id)).toContain('gpt-fake-1');
  });

  it('reports the usage a plan asks for: a long conversation without sending one', async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue({ text: 'ok', usage: { inputTokens: 90_000 } });
    const events = parseSse(await (await post(server, { stream: true, input: [] })).text());
    const done = events.find((e) => e.event === 'response.completed')!;
    const usage = (done.data.response as { usage: Record<string, number> }).usage;
    expect(usage.input_tokens).toBe(90_000);
    expect(usage.total_tokens).toBe(90_001);
  });

  it("answers Codex's compaction request with one compaction item, or its planned error", async () => {
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    server.enqueue(
      { usage: { inputTokens: 3000 } },
      { error: { status: 400, code: 'unknown_parameter', message: "Unknown parameter: 'x'." } },
      { disconnect: { afterChunk: 0 } },
    );
    const compact = {
      stream: true,
      input: [{ type: 'message', role: 'user', content: [] }, { type: 'compaction_trigger' }],
    };
    const events = parseSse(await (await post(server, compact)).text());
    const done = events.find((e) => e.event === 'response.completed')!;
    const output = (done.data.response as { output: Array<{ type: string }> }).output;
    expect(output.map((o) => o.type)).toEqual(['compaction']);
    expect(events.filter((e) => e.event === 'response.output_text.delta')).toEqual([]);

    const rejected = await post(server, compact);
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toMatchObject({
      error: { code: 'unknown_parameter', message: "Unknown parameter: 'x'." },
    });

    const cut = await post(server, compact);
    await expect(cut.text()).rejects.toThrow();
    await server.waitFor((e) => e.outcome === 'disconnected', { timeoutMs: 5000 });
  });
});
