import { z } from '@hono/zod-openapi';
import { defineOperation } from './contract.js';
import { Health } from './reads.js';

/** Per tool id: the folder and environment the dashboard's Start form offers a spawn with. */
export const SpawnPresets = z.record(
  z.string(),
  z.object({ cwd: z.string().optional(), env: z.record(z.string(), z.string()).optional() }),
);
export type SpawnPresets = z.infer<typeof SpawnPresets>;

const OWN_SERVER = 'each server answers for itself, a fleet server too: no host is asked';

/** Whether the service is up and its journal writes (`GET /healthz`). */
export const health = defineOperation({
  name: 'health',
  summary: 'The service is up; whether its journal writes, and how its observer keeps up',
  input: z.strictObject({}),
  output: Health,
  errors: ['internal'],
  http: { method: 'get', path: '/healthz' },
  notServed: {
    cli: 'a script asks `curl /healthz`; the CLI reports an unreachable or failing service in the exit code of every command',
    mcp: "the service's own health is no agent's state: a model that reaches a tool has a service that answers",
    fleet: OWN_SERVER,
  },
});

/** The service's counters in Prometheus text (`GET /metrics`). */
export const metrics = defineOperation({
  name: 'metrics',
  summary: "The service's counters and gauges, in Prometheus' text format",
  input: z.strictObject({}),
  output: z.string(),
  answers: 'text',
  errors: ['internal'],
  http: { method: 'get', path: '/metrics' },
  notServed: {
    cli: 'a Prometheus server scrapes it; nothing in it is for a person at a terminal',
    mcp: 'a Prometheus server scrapes it; nothing in it is for a model',
    fleet: OWN_SERVER,
  },
});

/** What the dashboard's Start form offers each tool with (`GET /v1/spawn-presets`). */
export const spawnPresets = defineOperation({
  name: 'spawnPresets',
  summary:
    "The folder and environment per tool that the dashboard's Start form fills in (`paneward demo` sets them)",
  input: z.strictObject({}),
  output: z.object({ presets: SpawnPresets }).openapi('SpawnPresets'),
  errors: ['internal'],
  http: { method: 'get', path: '/v1/spawn-presets' },
  notServed: {
    cli: 'the program that starts the service sets them (`paneward demo` does); `paneward spawn` takes the fields themselves',
    mcp: "the spawn tool takes the fields themselves; a preset fills in the dashboard's Start form",
    fleet: OWN_SERVER,
  },
});
