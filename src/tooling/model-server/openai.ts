import { randomUUID } from 'node:crypto';
import type { HandlerContext, Protocol } from './server.js';
import { chunksOf, type TurnPlan } from './plan.js';

/** Models the fake provider advertises; the first is the one agents are configured with. */
export const OPENAI_FAKE_MODELS = ['gpt-fake-1'] as const;

interface OpenAiErrorBody {
  error: { message: string; type: string; param: null; code: string | null };
}

/** The provider's error JSON for an HTTP status (OpenAI's shapes: type + code). */
export function openAiErrorBody(err: NonNullable<TurnPlan['error']>): OpenAiErrorBody {
  const defaults: Record<number, { type: string; code: string | null; message: string }> = {
    400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
    401: {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      message: 'Incorrect API key provided.',
    },
    429: {
      type: 'requests',
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached for requests. Please try again later.',
    },
    500: {
      type: 'server_error',
      code: null,
      message: 'The server had an error while processing your request. Sorry about that!',
    },
    503: {
      type: 'service_unavailable_error',
      code: 'server_is_overloaded',
      message: 'The server is overloaded or not ready yet.',
    },
  };
  const d = defaults[err.status] ?? {
    type: 'server_error',
    code: null,
    message: `HTTP ${err.status}`,
  };
  return {
    error: {
      message: err.message ?? d.message,
      type: err.type ?? d.type,
      param: null,
      code: err.code ?? d.code,
    },
  };
}

const usage = (outputTokens: number, inputTokens = 1200) => ({
  input_tokens: inputTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: outputTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: inputTokens + outputTokens,
});

function responseObject(
  id: string,
  model: string,
  status: string,
  output: unknown[],
  extra: object = {},
) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    ...extra,
  };
}

async function streamResponse(
  ctx: HandlerContext,
  plan: TurnPlan,
  modelOverride?: string,
): Promise<void> {
  const { res } = ctx;
  const body = (ctx.body ?? {}) as { model?: unknown };
  const model =
    modelOverride ?? (typeof body.model === 'string' ? body.model : OPENAI_FAKE_MODELS[0]);
  const respId = `resp_${randomUUID().replace(/-/g, '')}`;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let seq = 0;
  const send = (type: string, data: object) =>
    ctx.sse(type, { type, sequence_number: seq++, ...data });

  send('response.created', { response: responseObject(respId, model, 'in_progress', []) });
  send('response.in_progress', { response: responseObject(respId, model, 'in_progress', []) });
  if (plan.hang) {
    // The stream has really started (headers + first events); it never finishes.
    await ctx.untilGone();
    return;
  }

  const output: unknown[] = [];
  const chunks = plan.toolUse && plan.text === 'OK.' && !plan.chunks ? [] : chunksOf(plan);
  if (chunks.length > 0) {
    const itemId = `msg_${randomUUID().replace(/-/g, '')}`;
    const outputIndex = output.length;
    send('response.output_item.added', {
      output_index: outputIndex,
      item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    send('response.content_part.added', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      part: { type: 'output_text', annotations: [], text: '' },
    });
    let text = '';
    for (let i = 0; i < chunks.length; i++) {
      if (ctx.gone()) return;
      const delta = chunks[i]!;
      text += delta;
      send('response.output_text.delta', {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        delta,
      });
      const pause = plan.pauses.filter((p) => p.afterChunk === i).reduce((a, p) => a + p.ms, 0);
      if (i < chunks.length - 1 || pause > 0) await ctx.sleep(plan.chunkDelayMs + pause);
    }
    if (ctx.gone()) return;
    const part = { type: 'output_text', annotations: [], text };
    send('response.output_text.done', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      text,
    });
    send('response.content_part.done', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      part,
    });
    const item = {
      id: itemId,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [part],
    };
    send('response.output_item.done', { output_index: outputIndex, item });
    output.push(item);
  }

  if (plan.toolUse) {
    const outputIndex = output.length;
    const item = {
      id: `fc_${randomUUID().replace(/-/g, '')}`,
      type: 'function_call',
      status: 'completed',
      call_id: plan.toolUse.id ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      name: plan.toolUse.name,
      arguments: JSON.stringify(plan.toolUse.input),
    };
    send('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, status: 'in_progress' },
    });
    send('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: outputIndex,
      arguments: item.arguments,
    });
    send('response.output_item.done', { output_index: outputIndex, item });
    output.push(item);
  }

  send('response.completed', {
    response: responseObject(respId, model, 'completed', output, {
      usage: usage(Math.max(1, chunks.length), plan.usage?.inputTokens),
    }),
  });
  res.end();
}

function modelsList(ctx: HandlerContext): void {
  // Codex reads `models` (its own catalogue shape); OpenAI clients read `data`.
  const created = Math.floor(Date.now() / 1000);
  ctx.res.writeHead(200, { 'content-type': 'application/json' });
  ctx.res.end(
    JSON.stringify({
      object: 'list',
      data: OPENAI_FAKE_MODELS.map((id) => ({ id, object: 'model', created, owned_by: 'fake' })),
      models: [],
    }),
  );
}

/**
 * A side request that asks for structured JSON (Codex's thread-title request: `text.format` is a
 * JSON schema, no tools). It runs next to the turn and must not consume the turn's plan.
 */
export function isStructuredSideRequest(body: unknown): boolean {
  const b = body as { text?: { format?: { type?: unknown } } } | null;
  return b?.text?.format?.type === 'json_schema';
}

async function streamTitle(ctx: HandlerContext): Promise<void> {
  const title = JSON.stringify({ title: 'Fake session' });
  const model = OPENAI_FAKE_MODELS[0];
  await streamResponse(
    ctx,
    { ...ctx.plan, text: title, chunks: [title], toolUse: undefined, hang: false },
    model,
  );
}

/**
 * Codex's remote compaction (its `responses_compaction_v2`, used with the OpenAI provider): a
 * streamed `/responses` request whose last input item is a `compaction_trigger`; the answer must
 * hold exactly one `compaction` output item, which replaces the history.
 */
export function isCompactionRequest(body: unknown): boolean {
  const input = (body as { input?: unknown } | null)?.input;
  if (!Array.isArray(input) || input.length === 0) return false;
  return (input[input.length - 1] as { type?: unknown } | null)?.type === 'compaction_trigger';
}

/** Answers a compaction request with its one compaction item, or cuts it as the plan says. */
async function streamCompaction(ctx: HandlerContext, plan: TurnPlan): Promise<void> {
  const model = OPENAI_FAKE_MODELS[0];
  const respId = `resp_${randomUUID().replace(/-/g, '')}`;
  ctx.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type: string, data: object) =>
    ctx.sse(type, { type, sequence_number: seq++, ...data });
  send('response.created', { response: responseObject(respId, model, 'in_progress', []) });
  send('response.in_progress', { response: responseObject(respId, model, 'in_progress', []) });
  await ctx.sleep(plan.chunkDelayMs);
  if (plan.disconnect) {
    ctx.disconnect();
    return;
  }
  const item = {
    id: `cmp_${randomUUID().replace(/-/g, '')}`,
    type: 'compaction',
    encrypted_content: Buffer.from('summary of the conversation so far').toString('base64'),
  };
  send('response.output_item.added', { output_index: 0, item });
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', {
    response: responseObject(respId, model, 'completed', [item], {
      usage: usage(1, plan.usage?.inputTokens),
    }),
  });
  ctx.res.end();
}

/** OpenAI Responses API (`POST /v1/responses`, SSE) plus the model list, as Codex CLI uses them. */
export const openaiProtocol: Protocol = {
  name: 'openai',
  match(method, url, body) {
    if (method === 'POST' && url.pathname.endsWith('/responses')) {
      // Side requests are served as non-plan requests (they only take plans marked `any`).
      return { streaming: !isStructuredSideRequest(body) };
    }
    if (method === 'GET' && url.pathname.endsWith('/models')) return { streaming: false };
    return null;
  },
  async handle(ctx) {
    if (ctx.req.method === 'GET') {
      modelsList(ctx);
      return;
    }
    if (ctx.plan.error) {
      ctx.res.writeHead(ctx.plan.error.status, { 'content-type': 'application/json' });
      ctx.write(JSON.stringify(openAiErrorBody(ctx.plan.error)));
      ctx.res.end();
      return;
    }
    if (isCompactionRequest(ctx.body)) {
      await streamCompaction(ctx, ctx.plan);
      return;
    }
    if (isStructuredSideRequest(ctx.body) && ctx.plan.match !== 'any') {
      await streamTitle(ctx);
      return;
    }
    await streamResponse(ctx, ctx.plan);
  },
};
