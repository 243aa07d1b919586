import { afterEach, describe, expect, it } from 'vitest';
import {
  chatCompletionsProtocol,
  SIDE_REPLY,
} from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';

interface Chunk {
  object: string;
  choices: Array<{
    delta: {
      role?: string;
      content?: string;
      tool_calls?: Array<{
        index: number;
        id?: string;
        function: { name?: string; arguments?: string };
      }>;
    };
    finish_reason: string | null;
  }>;
  usage?: { total_tokens: number; prompt_tokens: number };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` kept as the string). */
function dataLines(text: string): Array<Chunk | '[DONE]'> {
  return text
    .split('\n\n')
    .filter((b) => b.trim() !== '')
    .map((b) => {
      expect(b.startsWith('data: '), `SSE block ${JSON.stringify(b)}`).toBe(true);
      const data = b.slice(6);
      return data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Chunk);
    });
}

const TOOLS = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }];
const turnBody = (extra: object = {}) => ({
  model: 'fake-model',
  stream: true,
  tools: TOOLS,
  ...extra,
});

const post = (server: FakeModelServer, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/chat/completions`, {
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

describe('Chat Completions protocol', () => {
  it('streams content deltas, then finish_reason stop, usage when asked, and [DONE]', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({
      chunks: ['Hel', 'lo', '!'],
      chunkDelayMs: 20,
      pauses: [{ afterChunk: 1, ms: 200 }],
    });
    const started = Date.now();
    const res = await post(server, turnBody({ stream_options: { include_usage: true } }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = dataLines(await res.text());
    expect(Date.now() - started).toBeGreaterThanOrEqual(230);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.filter((e): e is Chunk => e !== '[DONE]');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello!');
    const finishes = chunks.map((c) => c.choices[0]?.finish_reason ?? null).filter((f) => f);
    expect(finishes).toEqual(['stop']);
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    expect(server.log()[0]).toMatchObject({ outcome: 'completed', status: 200, streaming: true });
  });

  it('reports the input usage a plan asks for, even when the request did not ask for usage', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ text: 'ok', usage: { inputTokens: 190_000 } });
    const big = dataLines(await (await post(server, turnBody())).text());
    expect(big.at(-1)).toBe('[DONE]');
    const last = big.at(-2) as Chunk;
    expect(last.usage!.prompt_tokens).toBe(190_000);
    // No plan left: no usage chunk unless the request asks for one, then the usual small count.
    const plain = dataLines(await (await post(server, turnBody())).text());
    expect(plain.some((c) => c !== '[DONE]' && c.usage !== undefined)).toBe(false);
    const asked = dataLines(
      await (await post(server, turnBody({ stream_options: { include_usage: true } }))).text(),
    );
    expect((asked.at(-2) as Chunk).usage!.prompt_tokens).toBe(1200);
  });

  it('streams a tool call as deltas and ends with finish_reason tool_calls', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ toolUse: { name: 'bash', input: { command: 'touch x' }, id: 'call_1' } });
    const chunks = dataLines(await (await post(server, turnBody())).text()).filter(
      (e): e is Chunk => e !== '[DONE]',
    );
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_1', function: { name: 'bash' } });
    expect(calls.map((c) => c.function.arguments ?? '').join('')).toBe('{"command":"touch x"}');
    expect(chunks.some((c) => (c.choices[0]?.delta.content ?? '') !== '')).toBe(false);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('answers an error plan with the HTTP status and the OpenAI error JSON', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ error: { status: 500 } }, { error: { status: 429 } });
    const failed = await post(server, turnBody());
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { type: 'server_error' } });
    const limited = await post(server, turnBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(server.log().map((e) => e.outcome)).toEqual(['error', 'error']);
  });

  it('cuts the connection mid-stream without a finish chunk or [DONE]', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({
      chunks: ['one ', 'two ', 'three'],
      chunkDelayMs: 10,
      disconnect: { afterChunk: 1 },
    });
    const res = await post(server, turnBody());
    const reader = res.body!.getReader();
    let text = '';
    let failed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      failed = true;
    }
    expect(failed || !text.includes('[DONE]')).toBe(true);
    expect(text).toContain('two ');
    expect(text).not.toContain('three');
    expect(text).not.toContain('finish_reason":"stop');
    const [entry] = await server.waitFor(() => true, { timeoutMs: 2000 });
    expect(entry!.outcome).toBe('disconnected');
  });

  it('starts a hung stream and never completes it', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ hang: true });
    const abort = new AbortController();
    const res = await post(server, turnBody(), abort.signal);
    const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
    expect(first).toContain('"role":"assistant"');
    expect(server.log()[0]!.endedAt).toBeNull();
    abort.abort();
    const [entry] = await server.waitFor(() => true, { timeoutMs: 2000 });
    expect(entry!.outcome).toBe('hung');
  });

  it('serves side requests (no tools) without consuming the turn plan', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ text: 'the turn' });
    const title = dataLines(await (await post(server, { model: 'm', stream: true })).text());
    const titleText = title
      .filter((e): e is Chunk => e !== '[DONE]')
      .map((c) => c.choices[0]?.delta.content ?? '')
      .join('');
    expect(titleText).toBe(SIDE_REPLY);
    const whole = (await (await post(server, { model: 'm' })).json()) as {
      choices: Array<{ message: { content: string } }>;
    };
    expect(whole.choices[0]!.message.content).toBe(SIDE_REPLY);
    const turn = dataLines(await (await post(server, turnBody())).text())
      .filter((e): e is Chunk => e !== '[DONE]')
      .map((c) => c.choices[0]?.delta.content ?? '')
      .join('');
    expect(turn).toBe('the turn');
    expect(server.log().map((e) => e.streaming)).toEqual([false, false, true]);
  });

  it('serves a follow-up suggestion request (tools offered) as a side request', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    server.enqueue({ text: 'the turn' });
    const ask = (text: string) =>
      turnBody({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'say hello' }] },
          { role: 'assistant', content: 'Hello.' },
          { role: 'user', content: [{ type: 'text', text }] },
        ],
      });
    const textOf = async (body: unknown) =>
      dataLines(await (await post(server!, body)).text())
        .filter((e): e is Chunk => e !== '[DONE]')
        .map((c) => c.choices[0]?.delta.content ?? '')
        .join('');
    // As Qwen Code 0.24 asks it: the tools offered, the last user message in suggestion mode.
    const suggestion = ask('[SUGGESTION MODE: Suggest what the user might naturally type next.]');
    expect(await textOf(suggestion)).toBe(SIDE_REPLY);
    // The words elsewhere in a prompt make no side request of it.
    expect(await textOf(ask('what does [SUGGESTION MODE: mean?'))).toBe('the turn');
    expect(server.log().map((e) => e.streaming)).toEqual([false, true]);
  });

  it('lists the model', async () => {
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    const body = (await (await fetch(`${server.url}/v1/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(body.data.map((m) => m.id)).toEqual(['fake-model']);
  });
});
