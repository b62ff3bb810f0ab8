import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { emitEvent } from '../../src/events/event-repository.ts';
import type { EventType } from '../../src/events/event-types.ts';
import type { Mode } from '../../src/shared/ids.ts';

/**
 * Records an event as a state change does (the outbox's `emitEvent`, in a transaction of its
 * own), at `now`: the event log's and the stream's tests need events of chosen types and times,
 * not the payments that make them. Answers the event's id.
 */
export async function recordEvent(
  database: Pick<Database, 'db' | 'transact'>,
  merchantId: string,
  options: { type?: EventType; mode?: Mode; now?: number; payload?: Record<string, unknown> } = {},
): Promise<string> {
  const type = options.type ?? 'api.charge.payment';
  const payload = { event_type: type, status: 'success', amount: 1000, currency: 'MWK', ...options.payload };
  const subjectId = randomUUID();
  const event = { merchantId, mode: options.mode ?? 'test', type, subjectId, payload };
  await database.transact((trx) => emitEvent(trx, event, options.now ?? Date.now(), 'UTC'));
  const row = await database.db
    .selectFrom('events')
    .select('id')
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The messages so far (comments left out). */
  messages: SseMessage[];
  /** The comments so far (`: heartbeat`). */
  comments: string[];
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `GET /events/stream` with `key` and reads its messages as they come. */
export async function openStream(base: string, key: string, lastEventId?: string): Promise<SseStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${base}/events/stream`, { headers, signal: controller.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const at = line.indexOf(':');
              fields[line.slice(0, at)] = line.slice(at + 1).trimStart();
            }
          }
          if (fields.data !== undefined)
            messages.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages,
    comments,
    ended,
    async waitFor(count, timeoutMs = 5_000) {
      for (let waited = 0; messages.length < count; waited += 20) {
        if (waited > timeoutMs) throw new Error(`expected ${count} stream messages, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    close: () => controller.abort(),
  };
}
