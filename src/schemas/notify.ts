import { z } from 'zod';

/** Format version of a notification; bumped when a field changes meaning. */
export const NOTIFY_FORMAT = 1;

/**
 * What a person is told about (docs/notify.md): the agent asks the operator something
 * (`question`), a turn ended (`turn_ended`), the terminal stalled (`stalled`), the agent CLI
 * exited (`exited`), the pane is gone or detached, or its fleet host stopped answering (`gone`),
 * its fleet host answers again after it had stopped (`back`, fleet server only).
 */
export const NotifyKind = z.enum(['question', 'turn_ended', 'stalled', 'exited', 'gone', 'back']);
export type NotifyKind = z.infer<typeof NotifyKind>;

/** The turn outcomes a `turn_ended` notification carries. */
export const NotifyOutcome = z.enum(['success', 'interrupted', 'known_failure']);

/**
 * One notification, as the webhook receives it (the JSON body of a POST) and as `--notify-exec`
 * receives it on stdin. It carries no pane text: the blocked prompt is the label the profile
 * gives the question (`surface.blockedPrompt`), never the screen.
 */
export const NotifyEvent = z.strictObject({
  version: z.literal(NOTIFY_FORMAT),
  kind: NotifyKind,
  /** When paneward saw it (ISO 8601, UTC). */
  at: z.iso.datetime({ offset: true }),
  /** The terminal's id (`host/id` on a fleet server). */
  terminalId: z.string(),
  /** The host it runs on, on a fleet server (absent on a single server). */
  host: z.string().optional(),
  tool: z.string(),
  /** The turn that ended (`turn_ended`), or the turn under way. */
  turnId: z.string().optional(),
  /** How the turn ended (`turn_ended` only). */
  outcome: NotifyOutcome.optional(),
  /** What the agent waits for (`question` only): `surface.blockedPrompt`; null if unnamed. */
  prompt: z.string().nullable().optional(),
  /**
   * Why, for what the fleet server tells of a host rather than of a record: `gone` of a host
   * that stopped answering, and `back`. A sentence naming the host.
   */
  reason: z.string().optional(),
  /** How many events of this kind for this terminal this one stands for (debounce); 1 alone. */
  coalesced: z.number().int().positive(),
  /** The terminal's state when it was sent. */
  state: z.object({
    readiness: z.enum(['waiting', 'unknown', 'stalled', 'ready', 'blocked', 'failed']),
    phase: z.enum(['unknown', 'ready', 'active']),
    availability: z.enum(['unknown', 'available', 'unavailable', 'tui_down', 'error']),
    lastTurn: z.object({
      result: z.enum(['none', 'success', 'interrupted', 'known_failure']),
      turnId: z.string().nullable(),
    }),
  }),
});
export type NotifyEvent = z.infer<typeof NotifyEvent>;

/** How a delivery to one sink ended (metrics and the journal's `notify.delivery` record). */
export const DeliveryOutcome = z.enum(['delivered', 'failed', 'dropped']);
export type DeliveryOutcome = z.infer<typeof DeliveryOutcome>;

/**
 * The header a signed webhook POST carries (`--notify-secret-file`): `t=<unix seconds>,v1=<hex>`,
 * where `v1` is the HMAC-SHA256, keyed with the secret, of `<t>.` followed by the body's exact
 * bytes. A receiver recomputes it, compares in constant time and refuses an old `t` (a replay).
 */
export const NOTIFY_SIGNATURE_HEADER = 'X-Paneward-Signature';

/** The signature header's value, as sent; parsed into its timestamp and its digest. */
export const NotifySignature = z
  .string()
  .regex(/^t=\d{1,12},v1=[0-9a-f]{64}$/, {
    error: 'must be t=<unix seconds>,v1=<64 lowercase hex digits>',
  })
  .transform((s) => {
    const [t, v1] = s.split(',').map((part) => part.slice(part.indexOf('=') + 1));
    return { t: Number(t), v1: v1! };
  });
export type NotifySignature = z.output<typeof NotifySignature>;

/** An HTTP field name: a token (RFC 9110, section 5.6.2). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers a webhook POST must not be given by hand: the request's framing and addressing
 * (paneward and the HTTP client set them), connection management, and the signature.
 */
export const RESERVED_NOTIFY_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  NOTIFY_SIGNATURE_HEADER.toLowerCase(),
] as const;

/** The first control character (C0 or DEL) in `s`, as `U+00XX`; null when there is none. */
function controlIn(s: string): string | null {
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c < 0x20 || c === 0x7f) return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return null;
}

/**
 * One `--notify-header 'Name: value'`: a token for the name, a value of printable ASCII (spaces
 * around it are dropped), no control character in either (a CR or LF would start another
 * header), and none of {@link RESERVED_NOTIFY_HEADERS}.
 */
export const NotifyHeader = z.string().transform((text, ctx) => {
  const bad = (message: string) => {
    ctx.addIssue({ code: 'custom', message: `--notify-header ${message}` });
    return z.NEVER;
  };
  const colon = text.indexOf(':');
  if (colon < 0) return bad(`must be 'Name: value', and ${JSON.stringify(text)} has no colon`);
  const name = text.slice(0, colon);
  const value = text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  const nameControl = controlIn(name);
  if (nameControl) return bad(`name holds a control character (${nameControl})`);
  if (!HEADER_NAME.test(name)) {
    return bad(
      `name ${JSON.stringify(name)} is not a header name (letters, digits and !#$%&'*+-.^_\`|~, nothing else, not even a space before the colon)`,
    );
  }
  if ((RESERVED_NOTIFY_HEADERS as readonly string[]).includes(name.toLowerCase())) {
    return bad(`cannot set ${name}: paneward sets it (or it is not for a webhook to be given)`);
  }
  const valueControl = controlIn(value);
  if (valueControl) {
    return bad(`value of ${name} holds a control character (${valueControl})`);
  }
  if (!/^[\x20-\x7e]*$/.test(value)) {
    return bad(`value of ${name} must be printable ASCII`);
  }
  if (value === '') return bad(`${name} has no value`);
  return { name, value };
});
export type NotifyHeader = z.output<typeof NotifyHeader>;

/**
 * `--notify-kinds`: kinds separated by commas (the option may be given several times); only
 * these are told. An unknown kind is refused with the list of those there are.
 */
export const NotifyKindList = z.array(z.string()).transform((given, ctx) => {
  const kinds = new Set<NotifyKind>();
  const valid = NotifyKind.options.join(', ');
  for (const word of given.flatMap((g) => g.split(',')).map((w) => w.trim())) {
    const kind = NotifyKind.safeParse(word);
    if (kind.success) {
      kinds.add(kind.data);
      continue;
    }
    const hint = word === 'blocked' ? ' (a blocked terminal is told as `question`)' : '';
    ctx.addIssue({
      code: 'custom',
      message:
        word === ''
          ? `--notify-kinds names an empty kind; the kinds are ${valid}`
          : `--notify-kinds names ${JSON.stringify(word)}, which is not a kind${hint}; the kinds are ${valid}`,
    });
  }
  return [...kinds];
});
