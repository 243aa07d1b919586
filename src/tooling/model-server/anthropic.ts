import type { HandlerContext, Protocol } from './server.js';
import { chunksOf, type TurnPlan } from './plan.js';

/** Anthropic's error `type` for an HTTP status, as the Messages API sends it. */
export function anthropicErrorType(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return 'api_error';
}

const DEFAULT_ERROR_MESSAGE: Record<string, string> = {
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
};

interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  max_tokens?: number;
}

function asBody(body: unknown): MessagesBody {
  return body !== null && typeof body === 'object' ? (body as MessagesBody) : {};
}

/**
 * A request that carries the agent's turn: it streams and offers tools. Side requests (titles,
 * summaries, quota probes on a small model) offer no tools and must not consume turn plans.
 */
export function isTurnRequest(body: unknown): boolean {
  const b = asBody(body);
  return b.stream === true && Array.isArray(b.tools) && b.tools.length > 0;
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_fake${String(++ids).padStart(6, '0')}`;

function usage(output: number, input = 12) {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

async function writeError(ctx: HandlerContext, error: NonNullable<TurnPlan['error']>) {
  const type = error.type ?? anthropicErrorType(error.status);
  const message = error.message ?? DEFAULT_ERROR_MESSAGE[type] ?? 'Error';
  ctx.res.writeHead(error.status, {
    'content-type': 'application/json',
    'request-id': nextId('req'),
    ...(error.status === 429 ? { 'retry-after': '1' } : {}),
  });
  ctx.write(JSON.stringify({ type: 'error', error: { type, message } }));
  ctx.res.end();
}

/** Plays a plan as a `stream: true` Messages API response. */
async function streamPlan(ctx: HandlerContext, model: string, plan: TurnPlan) {
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': nextId('req'),
  });
  ctx.sse('message_start', {
    type: 'message_start',
    message: {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(1, plan.usage?.inputTokens),
    },
  });
  if (plan.hang) {
    ctx.sse('ping', { type: 'ping' });
    await ctx.untilGone();
    return;
  }
  const chunks = chunksOf(plan);
  let index = 0;
  let output = 0;
  if (plan.text.length > 0 || plan.chunks) {
    ctx.sse('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
    for (let i = 0; i < chunks.length; i++) {
      if (ctx.gone()) return;
      ctx.sse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: chunks[i] },
      });
      output++;
      const extra = plan.pauses.filter((p) => p.afterChunk === i).reduce((s, p) => s + p.ms, 0);
      const wait = (i < chunks.length - 1 ? plan.chunkDelayMs : 0) + extra;
      if (wait > 0) await ctx.sleep(wait);
    }
    ctx.sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (plan.toolUse) {
    ctx.sse('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: {
        type: 'tool_use',
        id: plan.toolUse.id ?? nextId('toolu'),
        name: plan.toolUse.name,
        input: {},
      },
    });
    const json = JSON.stringify(plan.toolUse.input);
    // Two partial deltas, as the real API splits the arguments.
    const cut = Math.floor(json.length / 2);
    for (const part of [json.slice(0, cut), json.slice(cut)]) {
      ctx.sse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: part },
      });
      await ctx.sleep(plan.chunkDelayMs);
    }
    ctx.sse('content_block_stop', { type: 'content_block_stop', index });
    output += 4;
  }
  if (ctx.gone()) return;
  ctx.sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: plan.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: output },
  });
  ctx.sse('message_stop', { type: 'message_stop' });
  ctx.res.end();
}

/** Answers a side request (title, summary, probe) with a short complete reply. */
async function answerSide(ctx: HandlerContext, model: string, stream: boolean) {
  const text = 'Fake session';
  if (stream) {
    await streamPlan(ctx, model, {
      ...ctx.plan,
      text,
      chunks: [text],
      pauses: [],
      hang: false,
      toolUse: undefined,
    });
    return;
  }
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'request-id': nextId('req') });
  ctx.write(
    JSON.stringify({
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(3),
    }),
  );
  ctx.res.end();
}

/**
 * The Anthropic Messages API as Claude Code calls it: `POST /v1/messages` (streaming turns and
 * small side requests) and `POST /v1/messages/count_tokens`. Only turn requests consume plans.
 */
export const anthropicProtocol: Protocol = {
  name: 'anthropic',
  match(method, url, body) {
    if (method !== 'POST') return null;
    if (url.pathname === '/v1/messages') return { streaming: isTurnRequest(body) };
    if (url.pathname === '/v1/messages/count_tokens') return { streaming: false };
    return null;
  },
  async handle(ctx) {
    const body = asBody(ctx.body);
    const model = body.model ?? 'claude-sonnet-4-5';
    if (ctx.url.pathname === '/v1/messages/count_tokens') {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.write(JSON.stringify({ input_tokens: 42 }));
      ctx.res.end();
      return;
    }
    const turn = isTurnRequest(body);
    // A side request only follows a plan queued for it explicitly (`match: 'any'`).
    if (!turn && ctx.plan.match !== 'any') return answerSide(ctx, model, body.stream === true);
    if (ctx.plan.error) return writeError(ctx, ctx.plan.error);
    if (body.stream !== true) return answerSide(ctx, model, false);
    await streamPlan(ctx, model, ctx.plan);
  },
};
