import { randomUUID } from 'node:crypto';
import type { HandlerContext, Protocol } from './server.js';
import { chunksOf, type TurnPlan } from './plan.js';
import { openAiErrorBody } from './openai.js';

/** The model id the fake provider answers as when a request names none. */
export const CHAT_FAKE_MODEL = 'fake-model';

interface ChatBody {
  model?: unknown;
  stream?: unknown;
  tools?: unknown;
  messages?: { role?: unknown; content?: unknown }[];
  stream_options?: { include_usage?: unknown };
}

function asBody(body: unknown): ChatBody {
  return body !== null && typeof body === 'object' ? (body as ChatBody) : {};
}

/**
 * A request that carries the agent's turn: it streams and offers tools. Side requests (a
 * session title, a summary) offer none and must not consume the turn plans.
 */
export function isChatTurnRequest(body: unknown): boolean {
  const b = asBody(body);
  return b.stream === true && Array.isArray(b.tools) && b.tools.length > 0 && !asksForSuggestion(b);
}

/**
 * Qwen Code (0.24) asks the model, after a turn, what the user might type next, as a streaming
 * request with the tools offered: its last message is a user message whose text starts with
 * `[SUGGESTION MODE:`. It is a side request, never a turn.
 */
function asksForSuggestion(b: ChatBody): boolean {
  const last = Array.isArray(b.messages) ? b.messages.at(-1) : undefined;
  if (last === null || typeof last !== 'object' || last.role !== 'user') return false;
  const parts: unknown[] = Array.isArray(last.content) ? last.content : [last.content];
  const first = parts[0];
  const text =
    typeof first === 'string'
      ? first
      : first !== null && typeof first === 'object' && 'text' in first
        ? (first as { text?: unknown }).text
        : undefined;
  return typeof text === 'string' && text.startsWith('[SUGGESTION MODE:');
}

const id = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 24)}`;

function usage(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

async function writeError(ctx: HandlerContext, error: NonNullable<TurnPlan['error']>) {
  ctx.res.writeHead(error.status, {
    'content-type': 'application/json',
    ...(error.status === 429 ? { 'retry-after': '1' } : {}),
  });
  ctx.write(JSON.stringify(openAiErrorBody(error)));
  ctx.res.end();
}

/**
 * Plays a plan as a `stream: true` Chat Completions response: a role chunk, content deltas,
 * tool-call deltas (the arguments in two parts), a last chunk with `finish_reason`, a usage
 * chunk when asked for or when the plan reports a usage, then `data: [DONE]`.
 */
async function streamPlan(ctx: HandlerContext, model: string, plan: TurnPlan, withUsage: boolean) {
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const completionId = id('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finishReason: string | null = null) =>
    ctx.sse(null, {
      id: completionId,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });

  chunk({ role: 'assistant', content: '' });
  if (plan.hang) {
    await ctx.untilGone();
    return;
  }
  const texts = plan.toolUse && plan.text === 'OK.' && !plan.chunks ? [] : chunksOf(plan);
  let sent = 0;
  for (let i = 0; i < texts.length; i++) {
    if (ctx.gone()) return;
    chunk({ content: texts[i] });
    sent++;
    if (plan.disconnect && plan.disconnect.afterChunk === i) {
      ctx.disconnect();
      return;
    }
    const pause = plan.pauses.filter((p) => p.afterChunk === i).reduce((a, p) => a + p.ms, 0);
    const wait = (i < texts.length - 1 ? plan.chunkDelayMs : 0) + pause;
    if (wait > 0) await ctx.sleep(wait);
  }
  if (plan.toolUse) {
    const args = JSON.stringify(plan.toolUse.input);
    const cut = Math.floor(args.length / 2);
    chunk({
      tool_calls: [
        {
          index: 0,
          id: plan.toolUse.id ?? id('call_'),
          type: 'function',
          function: { name: plan.toolUse.name, arguments: '' },
        },
      ],
    });
    for (const part of [args.slice(0, cut), args.slice(cut)]) {
      if (ctx.gone()) return;
      chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] });
      await ctx.sleep(plan.chunkDelayMs);
    }
    sent += 3;
  }
  if (ctx.gone()) return;
  chunk({}, plan.toolUse ? 'tool_calls' : 'stop');
  if (withUsage || plan.usage) {
    ctx.sse(null, {
      id: completionId,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [],
      usage: usage(plan.usage?.inputTokens ?? 1200, Math.max(1, sent)),
    });
  }
  ctx.sse(null, '[DONE]');
  ctx.res.end();
}

/** A complete (non-streaming) Chat Completions answer. */
function answerWhole(ctx: HandlerContext, model: string, text: string) {
  ctx.res.writeHead(200, { 'content-type': 'application/json' });
  ctx.write(
    JSON.stringify({
      id: id('chatcmpl-'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: usage(1200, 3),
    }),
  );
  ctx.res.end();
}

/** The text a side request (title, summary) gets. */
export const SIDE_REPLY = 'Fake session';

/**
 * OpenAI Chat Completions as the OpenAI-compatible agent CLIs call it: `POST …/chat/completions`
 * (streaming or not) and `GET …/models`. Only turn requests (streaming, tools offered) consume
 * plans; a side request takes a plan only when it is queued for any request (`match: 'any'`).
 */
export const chatCompletionsProtocol: Protocol = {
  name: 'chat_completions',
  match(method, url, body) {
    if (method === 'POST' && url.pathname.endsWith('/chat/completions')) {
      return { streaming: isChatTurnRequest(body) };
    }
    if (method === 'GET' && url.pathname.endsWith('/models')) return { streaming: false };
    return null;
  },
  async handle(ctx) {
    const body = asBody(ctx.body);
    const model = typeof body.model === 'string' ? body.model : CHAT_FAKE_MODEL;
    if (ctx.req.method === 'GET') {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.write(
        JSON.stringify({
          object: 'list',
          data: [{ id: CHAT_FAKE_MODEL, object: 'model', created: 0, owned_by: 'fake' }],
        }),
      );
      ctx.res.end();
      return;
    }
    const turn = isChatTurnRequest(body);
    const stream = body.stream === true;
    const withUsage = body.stream_options?.include_usage === true;
    if (!turn && ctx.plan.match !== 'any') {
      if (!stream) return answerWhole(ctx, model, SIDE_REPLY);
      const side = { ...ctx.plan, text: SIDE_REPLY, chunks: [SIDE_REPLY], pauses: [] };
      return streamPlan(
        ctx,
        model,
        { ...side, hang: false, toolUse: undefined, disconnect: undefined },
        withUsage,
      );
    }
    if (ctx.plan.error) return writeError(ctx, ctx.plan.error);
    if (!stream) return answerWhole(ctx, model, ctx.plan.text);
    await streamPlan(ctx, model, ctx.plan, withUsage);
  },
};
