/**
 * Every operation of the contract list (`OPERATIONS`) is served by every surface — the HTTP
 * API, the CLI client, the MCP tools, the fleet edge — or its contract says why that surface
 * does not serve it. An operation added to the list and forgotten by a surface fails here; so
 * does an MCP tool that takes a field its operation does not, or its own copy of one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, CLIENT_CALLS } from '../../src/cli/client-api.js';
import { CommandRequest } from '../../src/fleet/schemas.js';
import { fieldsOf, inputOf, takesTerminal, toolConfig, TOOLS } from '../../src/mcp/tools.js';
import { TerminalArg } from '../../src/mcp/summary.js';
import {
  COMMANDS,
  OPERATIONS,
  SURFACES,
  type OperationName,
} from '../../src/schemas/operations/index.js';
import { createHttpApp } from '../../src/server/app.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { uniqueSocketName } from '../e2e/harness/session.js';

const NAMES = Object.keys(OPERATIONS) as OperationName[];

describe('every operation is served by each surface, or says why not', () => {
  let sup: Supervisor;
  let paths: Record<string, Record<string, unknown>>;
  let routes: Array<{ method: string; path: string }>;

  beforeAll(async () => {
    sup = createSupervisor({ socketName: uniqueSocketName('served'), dataDir: null });
    const http = createHttpApp(sup);
    const doc = (await (await http.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    paths = doc.paths;
    routes = http.app.routes;
  });
  afterAll(async () => {
    await sup?.stop();
  });

  it('each has a summary, an HTTP route the API serves, and reasons only for real surfaces', () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(16);
    for (const name of NAMES) {
      const op = OPERATIONS[name];
      expect(op.name, name).toBe(name);
      expect(op.summary.length, name).toBeGreaterThan(10);
      expect(
        paths[op.http.path]?.[op.http.method],
        `${name}: ${op.http.method} ${op.http.path}`,
      ).toBeDefined();
      for (const [surface, why] of Object.entries(op.notServed ?? {})) {
        expect(SURFACES as readonly string[], name).toContain(surface);
        expect(why!.length, `${name} on ${surface}`).toBeGreaterThan(20);
      }
    }
  });

  it('the API serves no route of its own beside the operations (the page and its files apart)', () => {
    const served = new Set(
      NAMES.map((n) => `${OPERATIONS[n].http.method} ${OPERATIONS[n].http.path}`),
    );
    const own = routes
      .filter(
        (r) =>
          r.method !== 'ALL' &&
          (/^\/(v1|houmao)\//.test(r.path) || /^\/(healthz|metrics)$/.test(r.path)),
      )
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(own.length).toBeGreaterThanOrEqual(NAMES.length);
    for (const route of own) expect(served, route).toContain(route);
    for (const path of Object.keys(paths)) {
      if (path === '/openapi.json') continue;
      for (const method of Object.keys(paths[path]!))
        expect(served, `${method} ${path}`).toContain(`${method} ${path}`);
    }
  });

  it('the fleet edge takes exactly the commands, and every other operation says why not', () => {
    const edge = new Set(CommandRequest.options.map((o) => o.shape.op.value as string));
    for (const name of NAMES) {
      const why = OPERATIONS[name].notServed?.fleet;
      expect(edge.has(name), `${name}: fleet edge`).toBe(why === undefined);
      expect(name in COMMANDS, `${name}: COMMANDS`).toBe(why === undefined);
    }
  });

  it('the CLI client has a call for each, or the contract says why not (never both)', () => {
    for (const name of NAMES) {
      const method = CLIENT_CALLS[name];
      const why = OPERATIONS[name].notServed?.cli;
      expect(method === undefined, `${name}: a client call, or why not`).toBe(why !== undefined);
      if (method) expect(typeof ApiClient.prototype[method], `${name}: ${method}`).toBe('function');
    }
  });

  it('an MCP tool runs each, or the contract says why not (never both)', () => {
    const served = new Set<string>(
      Object.values(TOOLS).flatMap((t) => [t.operation, ...('also' in t ? t.also : [])]),
    );
    for (const name of NAMES) {
      const why = OPERATIONS[name].notServed?.mcp;
      expect(served.has(name), `${name}: an MCP tool, or why not`).toBe(why === undefined);
    }
  });
});

describe('each MCP tool takes its operation’s own fields', () => {
  it.each(Object.keys(TOOLS) as Array<keyof typeof TOOLS>)('%s', (name) => {
    const spec = TOOLS[name];
    const op = OPERATIONS[spec.operation];
    const contract = fieldsOf(op);
    const input = inputOf(spec);
    const own = 'own' in spec ? Object.keys(spec.own) : [];
    for (const [field, schema] of Object.entries(input)) {
      if (field === 'terminal') {
        expect(takesTerminal(op), `${name} names a terminal`).toBe(true);
        expect(schema).toBe(TerminalArg);
      } else if (own.includes(field)) {
        // The tool's own field is no field of the operation's (a wait of its own, a flag).
        expect(field in contract && contract[field] === schema, `${name}.${field}`).toBe(false);
      } else {
        // The very schema of the contract: its checks, its messages, its description.
        expect(schema, `${name}.${field}`).toBe(contract[field]);
      }
    }
    expect('terminal' in input).toBe(takesTerminal(op));
    expect(toolConfig(name).description.startsWith(op.summary)).toBe(true);
  });
});
