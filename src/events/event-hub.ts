import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Clock } from '../shared/clock.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { LATE_COMMIT_MS } from './event-cursor.ts';
import { eventKeysSince, eventsByIds, type EventRow } from './event-log-repository.ts';
import { sseMessage } from './event-views.ts';

/** One open event stream, as the hub sees it. */
export interface EventListener {
  owner: Principal;
  /** Events made before this (epoch ms) are not sent to it: it connected after them, or replays them itself. */
  since: number;
  /** `message` is the event as an SSE message, written once for all its listeners. */
  send(event: EventRow, message: string): void;
  /** The gateway is closing: end the stream (its client resumes elsewhere, or after the restart). */
  end(): void;
}

export interface EventHub {
  /** False once closing: a new stream would end at once, so it is refused (503) and its client waits and retries. */
  open(): boolean;
  /** Answers the unsubscribe. */
  subscribe(listener: EventListener): () => void;
  /** An event was recorded (a work notice): look now rather than at the interval. */
  wake(): void;
  /** Ends every stream and stops looking. */
  close(): Promise<void>;
}

/** How often the hub looks for events it was not told of (another process's writes to a SQLite file, a lost notice). */
const SAFETY_INTERVAL_MS = 1_000;
/** Rows asked for by id in one statement. */
const BY_ID_BATCH = 500;

const ownerKey = (merchantId: string, mode: string) => `${merchantId} ${mode}`;

/**
 * The one reader of new events per process, whatever the number of listeners: woken by the work
 * notice every recorded event sends (and at a slow interval), it reads the events made since its
 * watermark and hands each to the listeners of its merchant and mode. An idle listener costs a
 * map entry and its socket, no query. Events commit in an order their `created_at` need not
 * follow (the time is taken before the transaction commits), so the watermark trails the newest
 * event seen by LATE_COMMIT_MS, and the ids seen since it are kept to send each event once.
 * With no listener it forgets its place and reads nothing.
 */
export function startEventHub(
  { db, clock }: { db: Kysely<DB>; clock: Clock },
  log: FastifyBaseLogger | null,
): EventHub {
  const listeners = new Map<string, Set<EventListener>>();
  let listening = 0;
  let closed = false;
  /** Events made at this time or later may still be new to the hub; null while nobody listens. */
  let watermark: number | null = null;
  const seen = new Map<string, number>();

  const fanOut = (event: EventRow) => {
    const group = listeners.get(ownerKey(event.merchant_id, event.mode));
    if (!group) return;
    const message = sseMessage(event);
    for (const listener of group) if (event.created_at >= listener.since) listener.send(event, message);
  };

  const round = async () => {
    if (watermark === null) return;
    const from = watermark;
    const keys = await eventKeysSince(db, from);
    const fresh = keys.filter((key) => !seen.has(key.id)).map((key) => key.id);
    for (let start = 0; start < fresh.length; start += BY_ID_BATCH) {
      for (const event of await eventsByIds(db, fresh.slice(start, start + BY_ID_BATCH))) {
        seen.set(event.id, event.created_at);
        fanOut(event);
      }
    }
    // Nobody listened any more, or the hub started over, while the round read.
    if (watermark !== from) return;
    const newest = keys.at(-1)?.created_at ?? -Infinity;
    watermark = Math.max(from, newest - LATE_COMMIT_MS);
    for (const [id, createdAt] of seen) if (createdAt < watermark) seen.delete(id);
  };
  const loop: WorkerLoop = startWorkerLoop('events', SAFETY_INTERVAL_MS, round, log);

  return {
    open: () => !closed,
    subscribe(listener) {
      if (closed) {
        listener.end();
        return () => undefined;
      }
      const key = ownerKey(listener.owner.merchantId, listener.owner.mode);
      const group = listeners.get(key) ?? new Set();
      listeners.set(key, group.add(listener));
      if (listening++ === 0) {
        watermark = Math.min(clock.now(), listener.since) - LATE_COMMIT_MS;
        seen.clear();
      }
      return () => {
        if (!group.delete(listener)) return;
        if (group.size === 0) listeners.delete(key);
        if (--listening === 0) {
          watermark = null;
          seen.clear();
        }
      };
    },
    wake: () => loop.wake(),
    async close() {
      closed = true;
      for (const group of listeners.values()) for (const listener of group) listener.end();
      listeners.clear();
      listening = 0;
      watermark = null;
      await loop.stop();
    },
  };
}
