import { DeliverPolicy, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import { NATS_TIMEOUT_MS, withTimeout } from './connection.js';
import type { FleetFeed } from './feed.js';
import { STREAM } from './names.js';

/** What one connection's followers share: whether it is still current, and how to stop them. */
export interface Follower {
  live: () => boolean;
  running: Array<{ stop(): void }>;
  log: Logger | undefined;
}

/**
 * Follows a bucket: its current values, then each change. Answers the keys present now (a
 * listing of the keys says which do not exist any more), or null when the bucket could not be
 * read (tried again on the next connection).
 */
export async function watchBucket(
  kv: KV,
  f: Follower,
  apply: (key: string, entry: { value: string | null; created: Date } | null) => void,
): Promise<Set<string> | null> {
  try {
    const watch = await withTimeout(kv.watch({ key: '>' }));
    f.running.push({ stop: () => watch.stop() });
    void (async () => {
      for await (const e of watch) {
        if (!f.live()) break;
        apply(e.key, e.operation === 'PUT' ? { value: e.string(), created: e.created } : null);
      }
    })().catch((error: unknown) => f.log?.warn({ err: String(error) }, 'watch ended'));
    const present = new Set<string>();
    await withTimeout(
      (async () => {
        for await (const k of await kv.keys('>')) present.add(k);
      })(),
      4 * NATS_TIMEOUT_MS,
    );
    return present;
  } catch (error) {
    f.log?.warn({ err: String(error) }, 'cannot read a bucket; retrying on the next connection');
    return null;
  }
}

/**
 * The ids a fresh read shows gone: known before, not among the keys listed now, and not
 * delivered by the new watch either (a value written after the listing was taken is in no
 * listing but is heard, and stays).
 */
export function goneSince(
  known: Iterable<[id: string, key: string]>,
  present: ReadonlySet<string> | null,
  heard: ReadonlySet<string>,
): string[] {
  if (present === null) return [];
  const gone: string[] = [];
  for (const [id, key] of known) if (!present.has(key) && !heard.has(id)) gone.push(id);
  return gone;
}

/** Follows the record stream from where the feed is (its last `tailSize` records at first). */
export async function consumeStream(
  js: JetStreamClient,
  feed: FleetFeed,
  tailSize: number,
  f: Follower,
): Promise<void> {
  while (f.live()) {
    let messages: ConsumerMessages | null = null;
    try {
      let start = feed.nextSeq;
      if (start === 1) {
        const info = await withTimeout(
          (await withTimeout(js.jetstreamManager())).streams.info(STREAM),
        );
        start = Math.max(info.state.first_seq, info.state.last_seq - tailSize + 1, 1);
      }
      const consumer = await withTimeout(
        js.consumers.get(STREAM, {
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: start,
        }),
      );
      messages = await consumer.consume({ max_messages: 1000 });
      f.running.push({ stop: () => void messages?.close().catch(() => {}) });
      for await (const m of messages) {
        if (!f.live()) break;
        feed.push(m);
      }
    } catch (error) {
      if (f.live()) f.log?.warn({ err: String(error) }, 'stream reading interrupted; resuming');
    } finally {
      await messages?.close().catch(() => {});
    }
    if (f.live()) await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A value read from a bucket, as JSON; undefined when it is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
