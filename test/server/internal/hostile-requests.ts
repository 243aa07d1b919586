// The requests the HTTP fuzz test sends: the routes and random paths, queries, bodies and
// headers, and hostile requests that must be refused.
import fc from 'fast-check';

export const RUNS = Number(process.env.PANEWARD_FUZZ_RUNS ?? 3000);

/** Path segments a client could send: the real ones, ids, and junk. */
export const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'terminals',
    'events',
    'history',
    'input',
    'turns',
    'interrupt',
    'resume',
    'healthz',
    'metrics',
    'openapi.json',
    'f1',
    't1',
    'nope',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constantFrom('..', '%00', '%2F', '%E2%9D%AF', 'a'.repeat(300)),
);
/** The routes as they are, with their methods, and random paths and methods. */
export const ROUTES: Array<[string, string]> = [
  ['GET', '/v1/terminals'],
  ['POST', '/v1/terminals'],
  ['GET', '/v1/terminals/f1'],
  ['DELETE', '/v1/terminals/f1'],
  ['POST', '/v1/terminals/f1/input'],
  ['POST', '/v1/terminals/f1/turns'],
  ['GET', '/v1/terminals/f1/history'],
  ['POST', '/v1/terminals/f1/interrupt'],
  ['POST', '/v1/terminals/f1/resume'],
  ['GET', '/v1/events'],
  ['GET', '/v1/terminals/f1/events'],
  ['GET', '/healthz'],
  ['GET', '/openapi.json'],
  ['GET', '/metrics'],
];
export const methodAndPath = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ROUTES) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
    ),
  },
);
export const query = fc
  .option(
    fc.dictionary(
      fc.constantFrom('limit', 'since', 'x', ''),
      fc.oneof(fc.integer().map(String), fc.string({ maxLength: 8 })),
    ),
    { nil: undefined },
  )
  .map((q) => (q ? `?${new URLSearchParams(q).toString()}` : ''));
export const json = fc.oneof(
  fc
    .record(
      {
        text: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null)),
        prompt: fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.string())),
        force: fc.oneof(fc.boolean(), fc.string()),
        timeoutSeconds: fc.oneof(fc.double(), fc.integer(), fc.string()),
        target: fc.oneof(
          fc.constantFrom('%0', 'pw:0.0', 's:w.1', ''),
          fc.string({ maxLength: 10 }),
        ),
        tool: fc.oneof(
          fc.constantFrom('claude_code', 'unsupported', 'stand_in'),
          fc.string({ maxLength: 8 }),
        ),
        id: fc.string({ maxLength: 70 }),
        sessionWallClockSeconds: fc.oneof(fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
);
export const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    ),
    'last-event-id': fc.oneof(fc.nat().map(String), fc.string({ maxLength: 10 })),
    authorization: fc.string({ maxLength: 30 }),
    origin: fc.constantFrom('https://evil.example', 'null'),
    // What a script sends on an action without a body (else only a JSON body gets through).
    'x-paneward': fc.constant('1'),
  },
  { requiredKeys: [] },
);
export const request = fc.record({
  route: methodAndPath,
  query,
  body: fc.option(json, { nil: undefined }),
  headers,
});

/** Commands the app can pass on to the supervisor: each one may type, or change what is typed. */
export const ACTIONS = new Set(['submit', 'interrupt', 'resume', 'detach', 'attach']);

/** The ASCII control characters, DEL and the C1 ones a terminal also reads as keys. */
export const control = fc
  .integer({ min: 0, max: 0x9f })
  .filter((c) => c < 0x20 || (c >= 0x7f && c <= 0x9f))
  .map((c) => String.fromCharCode(c));
export const withControl = fc
  .tuple(fc.string({ maxLength: 6 }), control, fc.string({ maxLength: 6 }))
  .map(([a, c, b]) => `${a}${c}${b}`);

export const ACTING: Array<[string, string]> = [
  ['POST', '/v1/terminals'],
  ['POST', '/v1/terminals/f1/input'],
  ['POST', '/v1/terminals/f1/turns'],
  ['POST', '/v1/terminals/f1/interrupt'],
  ['POST', '/v1/terminals/f1/resume'],
  ['DELETE', '/v1/terminals/f1'],
  ['PUT', '/v1/terminals/f1'],
  ['PATCH', '/v1/terminals/f1/input'],
];
export const anyRoute = fc.oneof(fc.constantFrom(...ROUTES), fc.constantFrom(...ACTING));
export const actingRoute = fc.constantFrom(...ACTING);
/** A body that would act if it got through: a prompt, an attach, nothing at all. */
export const actingBody = fc.constantFrom(
  undefined,
  '{}',
  JSON.stringify({ text: 'FUZZ-TYPED rm -rf ~', force: true }),
  JSON.stringify({ prompt: 'FUZZ-TYPED', timeoutSeconds: 1, force: true }),
  JSON.stringify({ target: 'pw:0.0', tool: 'stand_in', id: 'fz' }),
);
export const HUGE = [
  '1e308',
  '-1e308',
  '1e999',
  '2592001',
  '9007199254740993',
  '99999999999999999999',
];

export interface Hostile {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  status: number;
  /** What the error message must name. */
  names: string;
}

export const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  // DNS rebinding: a name that is not the service's, on any route.
  fc
    .record({
      route: anyRoute,
      host: fc.oneof(
        fc.constantFrom(
          'evil.example:7420',
          'evil.example',
          '127.0.0.1.evil.example:7420',
          'localhost.evil.example',
          'attacker.localhost:7420',
          '[::2]:7420',
          '0.0.0.0:7420',
          '127.0.0.2:7420',
        ),
        fc.stringMatching(/^[a-z0-9.-]{1,20}(:[0-9]{1,5})?$/),
      ),
      body: actingBody,
      json: fc.boolean(),
    })
    .filter((r) => !['127.0.0.1', 'localhost'].includes(r.host.replace(/:\d+$/, '')))
    .map((r) => ({
      what: 'foreign Host',
      method: r.route[0],
      path: r.route[1],
      headers: {
        host: r.host,
        'x-paneward': '1',
        ...(r.json ? { 'content-type': 'application/json' } : {}),
      },
      body: r.body,
      status: 403,
      names: 'Host',
    })),
  // A page on another origin (or an opaque one) asking the service to act.
  fc
    .record({
      route: actingRoute,
      origin: fc.oneof(
        fc.constantFrom(
          'https://evil.example',
          'null',
          'http://127.0.0.1:1',
          'http://localhost:3000',
          'http://evil.example:7420',
          'file://',
        ),
        fc.string({ maxLength: 12 }).filter((o) => /^[\x20-\x7e]*$/.test(o)),
      ),
      body: actingBody,
      marked: fc.boolean(),
    })
    .map((r) => ({
      what: 'foreign Origin',
      method: r.route[0],
      path: r.route[1],
      headers: {
        origin: r.origin,
        'content-type': 'application/json',
        ...(r.marked ? { 'x-paneward': '1' } : {}),
      },
      body: r.body,
      status: 403,
      names: 'Origin',
    })),
  // What a form post, a no-cors fetch or a beacon can send: no JSON, no custom header.
  fc
    .record({
      route: actingRoute,
      type: fc.constantFrom(
        undefined,
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ),
      body: actingBody,
    })
    .map((r) => ({
      what: 'bodiless or simple post',
      method: r.route[0],
      path: r.route[1],
      headers: (r.type === undefined ? {} : { 'content-type': r.type }) as Record<string, string>,
      body: r.body,
      status: 403,
      names: 'Content-Type',
    })),
  // Huge numbers in every number a client can send.
  fc
    .record({
      huge: fc.constantFrom(...HUGE),
      // Past what a seq can be (a seq is a safe integer; 2592001 is a fine one).
      hugeSeq: fc.constantFrom(...HUGE.filter((h) => h !== '2592001')),
      where: fc.constantFrom(
        'sessionWallClockSeconds',
        'timeoutSeconds',
        'limit',
        'since',
        'Last-Event-ID',
      ),
    })
    .map(({ huge, hugeSeq, where }): Hostile => {
      const base = { what: 'huge number', headers: { 'content-type': 'application/json' } };
      switch (where) {
        case 'sessionWallClockSeconds':
          return {
            ...base,
            method: 'POST',
            path: '/v1/terminals',
            body: `{"target":"pw:0.0","tool":"stand_in","id":"fz","sessionWallClockSeconds":${huge}}`,
            status: 400,
            names: where,
          };
        case 'timeoutSeconds':
          return {
            ...base,
            method: 'POST',
            path: '/v1/terminals/f1/turns',
            body: `{"prompt":"FUZZ-TYPED","timeoutSeconds":${huge}}`,
            status: 400,
            names: where,
          };
        case 'limit':
        case 'since':
          return {
            ...base,
            method: 'GET',
            path: `/v1/terminals/f1/${where === 'limit' ? 'history' : 'events'}?${where}=${where === 'limit' ? huge : hugeSeq}`,
            body: undefined,
            status: 400,
            names: where,
          };
        default:
          return {
            ...base,
            method: 'GET',
            path: '/v1/events',
            headers: { 'last-event-id': hugeSeq },
            body: undefined,
            status: 400,
            names: where,
          };
      }
    }),
  // Control characters in every string field of an attach.
  fc
    .record({ field: fc.constantFrom('target', 'tool', 'id'), value: withControl })
    .map(({ field, value }) => ({
      what: 'control character',
      method: 'POST',
      path: '/v1/terminals',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'pw:0.0', tool: 'stand_in', id: 'fz', [field]: value }),
      status: 400,
      names: field,
    })),
);
