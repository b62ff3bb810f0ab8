/**
 * Where a listener of the event stream is: the SSE `id` of the last event it was sent, which it
 * sends back as `Last-Event-ID` to resume. Event ids are random, so the cursor leads with the
 * event's creation time (epoch ms): `1764320000123-evt_…`, ordered by time, then id.
 */
export interface EventCursor {
  createdAt: number;
  id: string;
}

/**
 * How long after its `created_at` an event may still commit and reach the stream: the time is
 * taken inside the transaction, before its commit, and on PostgreSQL several processes' clocks
 * stamp events. The stream's poller trails the newest event by this much, and a resume replays
 * from this long before its cursor (a listener may so be sent an event twice: ids tell them apart).
 */
export const LATE_COMMIT_MS = 5_000;

const CURSOR = /^(\d{1,15})-([A-Za-z0-9_]{1,100})$/;

export function formatCursor(event: { created_at: number; id: string }): string {
  return `${event.created_at}-${event.id}`;
}

/** The cursor `text` names, or null when it names none (a client's own id, garbage). */
export function parseCursor(text: string | undefined): EventCursor | null {
  const match = CURSOR.exec(text ?? '');
  return match ? { createdAt: Number(match[1]), id: match[2]! } : null;
}
