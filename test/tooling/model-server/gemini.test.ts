import { afterEach, describe, expect, it } from 'vitest';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { geminiProtocol, sampleForSchema } from '../../../src/tooling/model-server/gemini.js';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const STREAM = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

interface Chunk {
  candidates?: Array<{ content: { parts: Array<Record<string, unknown>> }; finishReason?: string }>;
  usageMetadata?: { totalTokenCount: number; promptTokenCount: number };
}

function events(raw: string): Chunk[] {
  return raw
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Chunk);
}

async function start(): Promise<FakeModelServer> {
  server = await startFakeModelServer({ protocols: [geminiProtocol] });
  return server;
}

describe('gemini fake protocol', () => {
  it('streams text chunks as SSE with pauses, ending with STOP and usage', async () => {
    const s = await start();
    s.enqueue({
      chunks: ['Hel', 'lo ', 'there'],
      chunkDelayMs: 10,
      pauses: [{ afterChunk: 0, ms: 300 }],
    });
    const t0 = Date.now();
    const res = await fetch(s.url + STREAM, { method: 'POST', body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const evs = events(await res.text());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(evs.map((e) => e.candidates?.[0]?.content.parts[0]?.['text']).join('')).toBe(
      'Hello there',
    );
    expect(evs.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(evs.at(-1)?.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(evs.slice(0, -1).every((e) => e.candidates?.[0]?.finishReason === undefined)).toBe(true);
    const [entry] = await s.waitFor((e) => e.streaming);
    expect(entry?.outcome).toBe('completed');
  });

  it('reports the prompt tokens a plan asks for, else an estimate from the request', async () => {
    const s = await start();
    s.enqueue({ text: 'ok', chunkDelayMs: 0, usage: { inputTokens: 1_040_000 } });
    const big = events(await (await fetch(s.url + STREAM, { method: 'POST', body })).text());
    expect(big.at(-1)?.usageMetadata?.promptTokenCount).toBe(1_040_000);
    const small = events(await (await fetch(s.url + STREAM, { method: 'POST', body })).text());
    expect(small.at(-1)?.usageMetadata?.promptTokenCount).toBeLessThan(100);
  });

  it('answers an error plan with the Google API error body', async () => {
    const s = await start();
    s.enqueue({ error: { status: 429 } });
    const res = await fetch(s.url + STREAM, { method: 'POST', body });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
      },
    });
  });

  it('ends a tool plan with a functionCall part', async () => {
    const s = await start();
    s.enqueue({
      text: 'Running.',
      chunkDelayMs: 0,
      toolUse: { name: 'run_shell_command', input: { command: 'ls' } },
    });
    const evs = events(await (await fetch(s.url + STREAM, { method: 'POST', body })).text());
    const last = evs.at(-1)?.candidates?.[0];
    expect(last?.content.parts[0]).toEqual({
      functionCall: { name: 'run_shell_command', args: { command: 'ls' } },
    });
    expect(last?.finishReason).toBe('STOP');
  });

  it('answers structured one-shot calls with JSON that fits the schema', async () => {
    const s = await start();
    const schema = {
      type: 'object',
      properties: {
        reasoning: { type: 'string' },
        next_speaker: { type: 'string', enum: ['model', 'user'] },
      },
    };
    const res = await fetch(s.url + '/v1beta/models/gemini-2.5-flash:generateContent', {
      method: 'POST',
      body: JSON.stringify({ contents: [], generationConfig: { responseJsonSchema: schema } }),
    });
    const json = (await res.json()) as Chunk;
    const text = json.candidates?.[0]?.content.parts[0]?.['text'] as string;
    expect(JSON.parse(text)).toEqual({ reasoning: 'ok', next_speaker: 'user' });
    expect(sampleForSchema({ type: 'string', enum: ['flash', 'pro'] })).toBe('flash');
  });

  it('plays a hang: the stream starts and ends only when the client goes away', async () => {
    const s = await start();
    s.enqueue({ text: 'thinking', hang: true });
    const ac = new AbortController();
    const res = await fetch(s.url + STREAM, { method: 'POST', body, signal: ac.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('thinking');
    expect(s.log()[0]?.endedAt).toBeNull();
    ac.abort();
    const [entry] = await s.waitFor((e) => e.streaming, { timeoutMs: 5000 });
    expect(entry?.outcome).toBe('hung');
    expect(entry?.firstByteAt).not.toBeNull();
  });
});
