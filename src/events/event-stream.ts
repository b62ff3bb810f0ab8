import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Clock } from '../shared/clock.ts';
import { LATE_COMMIT_MS, parseCursor } from './event-cursor.ts';
import type { EventHub, EventListener } from './event-hub.ts';
import { ownEventsSince, type EventRow } from './event-log-repository.ts';
import { sseMessage } from './event-views.ts';

/** A comment this often keeps proxies, which cut connections idle for a minute or so, from cutting a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** How long a client waits before reconnecting after the stream ends (SSE `retry:`). */
const RECONNECT_MS = 2_000;
/** Events replayed per statement. */
const REPLAY_PAGE = 500;
/**
 * Bytes a listener may leave unread before it is cut off: a client that stopped reading would
 * otherwise grow the gateway's memory with every event. It resumes where it was, by its cursor.
 */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

export interface StreamDeps {
  db: Kysely<DB>;
  clock: Clock;
  hub: EventHub;
  log: FastifyBaseLogger;
}

/**
 * What a stream's client is sent, pushed straight into the response's source: a Readable rather
 * than a PassThrough, since every event is written once per listener and a transform doubled
 * that work. The response destroys it when the client goes, which closes it.
 */
class SseOutput {
  readonly readable: Readable;
  private room: (() => void) | null = null;
  /** Ended by us: what is pushed is still being read. */
  private ending = false;

  constructor() {
    this.readable = new Readable({ read: () => this.madeRoom() });
    this.readable.on('close', () => this.madeRoom());
  }

  get open(): boolean {
    return !this.readable.readableEnded && !this.readable.destroyed && !this.ending;
  }

  write(text: string): void {
    if (!this.open) return;
    this.readable.push(text);
    if (this.readable.readableLength > MAX_UNREAD_BYTES) this.end();
  }

  end(): void {
    if (!this.open) return;
    this.ending = true;
    this.readable.push(null);
  }

  /** Resolves once the client has read what is waiting (or gone). */
  async roomToWrite(): Promise<void> {
    if (this.readable.readableLength < this.readable.readableHighWaterMark) return;
    await new Promise<void>((resolve) => (this.room = resolve));
  }

  private madeRoom(): void {
    this.room?.();
    this.room = null;
  }
}

/**
 * The stream of `owner`'s events, from now, or after `lastEventId` when a client resumes: the
 * events since are replayed from the database, from LATE_COMMIT_MS before the cursor (those
 * that committed late), then the hub's live ones follow; what the replay sent is not sent again.
 * The stream ends when the gateway closes, and the hub forgets it when the client goes.
 */
export function openEventStream(deps: StreamDeps, owner: Principal, lastEventId: string | undefined): Readable {
  const output = new SseOutput();
  const cursor = parseCursor(lastEventId);
  let replaying = cursor !== null;
  const held: Array<[EventRow, string]> = [];
  const replayed = new Set<string>();
  const write = (event: EventRow, message: string) => {
    if (!replayed.has(event.id)) output.write(message);
  };
  const listener: EventListener = {
    owner,
    since: cursor ? cursor.createdAt - LATE_COMMIT_MS : deps.clock.now(),
    send: (event, message) => (replaying ? held.push([event, message]) : write(event, message)),
    end: () => output.end(),
  };
  output.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
  const unsubscribe = deps.hub.subscribe(listener);
  const heartbeat = setInterval(() => output.write(': heartbeat\n\n'), HEARTBEAT_MS);
  output.readable.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
  if (cursor) {
    replay(deps, owner, listener.since, cursor.id, output, replayed).then(
      () => {
        replaying = false;
        for (const [event, message] of held.splice(0)) write(event, message);
      },
      (error: unknown) => {
        deps.log.warn({ err: error }, 'event stream replay failed: the client resumes from its cursor');
        output.end();
      },
    );
  }
  return output.readable;
}

/** Answers with the stream; no proxy may buffer it (nginx's `X-Accel-Buffering`) nor cache it. */
export function sendEventStream(reply: FastifyReply, stream: Readable): FastifyReply {
  return reply
    .type('text/event-stream; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-accel-buffering', 'no')
    .send(stream);
}

/** Sends `owner`'s events made at `since` or later but the one the client last had, page by page, waiting while it reads. */
async function replay(
  { db }: StreamDeps,
  owner: Principal,
  since: number,
  lastId: string,
  output: SseOutput,
  replayed: Set<string>,
): Promise<void> {
  replayed.add(lastId);
  let after: EventRow | null = null;
  for (;;) {
    const page: EventRow[] = await ownEventsSince(
      db,
      owner,
      since,
      after && { createdAt: after.created_at, id: after.id },
      REPLAY_PAGE,
    );
    for (const event of page) {
      if (replayed.has(event.id)) continue;
      replayed.add(event.id);
      output.write(sseMessage(event));
    }
    if (page.length < REPLAY_PAGE || !output.open) return;
    after = page.at(-1)!;
    await output.roomToWrite();
  }
}
