import { z } from '@hono/zod-openapi';
import { JournalRecord } from '../record.js';
import { defineOperation, TERMINAL_ERRORS, TerminalId } from './contract.js';
import { EventsQuery, History, HistoryQuery } from './reads.js';

const FLEET_RECORDS =
  'a fleet server answers from the records it follows from every host, asking no host';

/** A terminal's latest records (`GET /v1/terminals/{id}/history`). */
export const history = defineOperation({
  name: 'history',
  summary: "A terminal's latest records, oldest first",
  input: z.strictObject({ id: TerminalId, ...HistoryQuery.shape }),
  output: History,
  errors: TERMINAL_ERRORS,
  http: { method: 'get', path: '/v1/terminals/{id}/history' },
  notServed: {
    mcp: "a model reads where a terminal stands (terminal_state) and each turn's outcome (wait_for_turn); the raw records are for scripts and the dashboard",
    fleet: FLEET_RECORDS,
  },
});

const STREAM_NOT_MCP =
  'a tool call answers once, a stream never ends; a model waits for the turn it started instead (wait_for_turn)';

/** Every terminal's records, then live (`GET /v1/events`, Server-Sent Events). */
export const events = defineOperation({
  name: 'events',
  summary: 'The record stream, from `Last-Event-ID` or `since`, then live',
  input: z.strictObject({ ...EventsQuery.shape }),
  output: JournalRecord,
  answers: 'event-stream',
  errors: ['invalid_input', 'internal'],
  http: { method: 'get', path: '/v1/events' },
  notServed: { mcp: STREAM_NOT_MCP, fleet: FLEET_RECORDS },
});

/** One terminal's records, then live (`GET /v1/terminals/{id}/events`, Server-Sent Events). */
export const terminalEvents = defineOperation({
  name: 'terminalEvents',
  summary: "One terminal's records, from `Last-Event-ID` or `since`, then live",
  input: z.strictObject({ id: TerminalId, ...EventsQuery.shape }),
  output: JournalRecord,
  answers: 'event-stream',
  errors: TERMINAL_ERRORS,
  http: { method: 'get', path: '/v1/terminals/{id}/events' },
  notServed: { mcp: STREAM_NOT_MCP, fleet: FLEET_RECORDS },
});
