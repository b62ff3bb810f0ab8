import { formatTimestamp } from '../shared/time.ts';
import { formatCursor } from './event-cursor.ts';
import type { EventRow } from './event-log-repository.ts';

/** An event as the API lists it and the stream sends it: `payload` is the webhook body, as stored when the state changed. */
export function eventView(event: EventRow) {
  return {
    id: event.id,
    type: event.type,
    mode: event.mode,
    created_at: formatTimestamp(event.created_at),
    payload: JSON.parse(event.payload) as Record<string, unknown>,
  };
}

/** One event as an SSE message: its cursor, its type, and the event as `GET /events/{id}` shows it. */
export function sseMessage(event: EventRow): string {
  return `id: ${formatCursor(event)}\nevent: ${event.type}\ndata: ${JSON.stringify(eventView(event))}\n\n`;
}
