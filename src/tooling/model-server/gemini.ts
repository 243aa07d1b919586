import type { HandlerContext, Protocol } from './server.js';
import { chunksOf, type TurnPlan } from './plan.js';

/** Google API status names by HTTP status, as the Generative Language API returns them. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Default messages the real API sends with those statuses. */
const STATUS_MESSAGES: Record<number, string> = {
  400: 'Request contains an invalid argument.',
  429: 'Resource has been exhausted (e.g. check quota).',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'Deadline expired before operation could complete.',
};

const ROUTE =
  /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

/** The Google API error body: `{ error: { code, message, status } }`. */
export function geminiErrorBody(error: NonNullable<TurnPlan['error']>): unknown {
  return {
    error: {
      code: error.status,
      message: error.message ?? STATUS_MESSAGES[error.status] ?? 'Unknown error.',
      status: error.type ?? STATUS_NAMES[error.status] ?? 'UNKNOWN',
    },
  };
}

/** Token counts: the prompt's are estimated from the body unless the plan reports a usage. */
function usage(body: unknown, outText: string, plan?: TurnPlan) {
  const promptTokenCount =
    plan?.usage?.inputTokens ?? Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
  const candidatesTokenCount = Math.max(1, Math.ceil(outText.length / 4));
  return {
    promptTokenCount,
    candidatesTokenCount,
    totalTokenCount: promptTokenCount + candidatesTokenCount,
  };
}

function candidate(parts: unknown[], finishReason?: string) {
  return {
    content: { role: 'model', parts },
    index: 0,
    ...(finishReason ? { finishReason } : {}),
  };
}

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

/** Values the CLI's structured side calls must get to leave the turn to the user. */
const FIELD_OVERRIDES: Record<string, unknown> = { next_speaker: 'user' };

/** A minimal value that satisfies a JSON schema (first enum value, "ok" for strings, ...). */
export function sampleForSchema(schema: JsonSchema | undefined, key?: string): unknown {
  if (key !== undefined && key in FIELD_OVERRIDES) return FIELD_OVERRIDES[key];
  if (!schema) return {};
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const type = (Array.isArray(schema.type) ? schema.type[0] : schema.type)?.toLowerCase();
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = sampleForSchema(v, k);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'ok';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return {};
  }
}

function requestSchema(body: unknown): JsonSchema | undefined {
  const cfg = (body as { generationConfig?: Record<string, unknown> } | null)?.generationConfig;
  return (cfg?.['responseJsonSchema'] ?? cfg?.['responseSchema']) as JsonSchema | undefined;
}

async function sendError(
  ctx: HandlerContext,
  error: NonNullable<TurnPlan['error']>,
): Promise<void> {
  ctx.res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8' });
  ctx.write(JSON.stringify(geminiErrorBody(error)));
  ctx.res.end();
}

/** Streams the plan as `streamGenerateContent?alt=sse` events. */
async function stream(ctx: HandlerContext, model: string): Promise<void> {
  const { plan } = ctx;
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  ctx.res.flushHeaders();
  const chunks = chunksOf(plan);
  const finishesWithText = !plan.toolUse && !plan.hang;
  for (let i = 0; i < chunks.length; i++) {
    if (ctx.gone()) return;
    const last = i === chunks.length - 1 && finishesWithText;
    ctx.sse(null, {
      candidates: [candidate([{ text: chunks[i] }], last ? 'STOP' : undefined)],
      ...(last ? { usageMetadata: usage(ctx.body, plan.text, plan) } : {}),
      modelVersion: model,
    });
    if (i < chunks.length - 1 || !finishesWithText) {
      await ctx.sleep(plan.chunkDelayMs);
      const pause = plan.pauses.filter((p) => p.afterChunk === i).reduce((s, p) => s + p.ms, 0);
      if (pause > 0) await ctx.sleep(pause);
    }
  }
  if (plan.hang) {
    await ctx.untilGone();
    return;
  }
  if (plan.toolUse && !ctx.gone()) {
    const call = {
      name: plan.toolUse.name,
      args: plan.toolUse.input,
      ...(plan.toolUse.id ? { id: plan.toolUse.id } : {}),
    };
    ctx.sse(null, {
      candidates: [candidate([{ functionCall: call }], 'STOP')],
      usageMetadata: usage(ctx.body, plan.text, plan),
      modelVersion: model,
    });
  }
  ctx.res.end();
}

/** One-shot `generateContent`: structured side calls (routing, next-speaker check) or plain text. */
async function single(ctx: HandlerContext, model: string): Promise<void> {
  const schema = requestSchema(ctx.body);
  const text = schema ? JSON.stringify(sampleForSchema(schema)) : ctx.plan.text;
  ctx.res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  ctx.write(
    JSON.stringify({
      candidates: [candidate([{ text }], 'STOP')],
      usageMetadata: usage(ctx.body, text),
      modelVersion: model,
    }),
  );
  ctx.res.end();
}

/**
 * The Gemini API (`generativelanguage.googleapis.com` shape) as Gemini CLI calls it with
 * `GOOGLE_GEMINI_BASE_URL`: streaming turns over SSE, one-shot JSON calls, token counts.
 */
export const geminiProtocol: Protocol = {
  name: 'gemini',
  match(method, url) {
    const m = ROUTE.exec(url.pathname);
    if (method === 'POST' && m) return { streaming: m[2] === 'streamGenerateContent' };
    return null;
  },
  async handle(ctx) {
    const m = ROUTE.exec(ctx.url.pathname)!;
    const model = decodeURIComponent(m[1]!);
    const action = m[2]!;
    if (action === 'countTokens') {
      ctx.res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      ctx.write(JSON.stringify({ totalTokens: usage(ctx.body, '').promptTokenCount }));
      ctx.res.end();
      return;
    }
    if (ctx.plan.error) return sendError(ctx, ctx.plan.error);
    if (action === 'streamGenerateContent') return stream(ctx, model);
    return single(ctx, model);
  },
};
