import { Type } from '@sinclair/typebox';
import { SuccessEnvelope } from '../http/envelope.ts';
import { EVENT_TYPES } from './event-types.ts';

/** A day (`2026-11-28`) or a time with its zone (`2026-11-28T09:00:00Z`, `…+02:00`), read by the service. */
const ISO_TIME = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

export const EventQuery = Type.Object({
  type: Type.Optional(Type.String({ enum: [...EVENT_TYPES] })),
  from: Type.Optional(
    Type.String({ pattern: ISO_TIME, description: 'Made at this time or later (a day means its start, UTC).' }),
  ),
  to: Type.Optional(
    Type.String({ pattern: ISO_TIME, description: 'Made at this time or earlier (a day means its end, UTC).' }),
  ),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  per_page: Type.Optional(Type.String({ pattern: '^([1-9]|[1-9][0-9]|100)$' })),
});

export const EventParams = Type.Object({ id: Type.String() });

const EventView = Type.Object({
  id: Type.String(),
  type: Type.String(),
  mode: Type.String(),
  created_at: Type.String(),
  payload: Type.Object(
    {},
    { additionalProperties: true, description: 'The webhook body, exactly as the webhook carries it.' },
  ),
});

const EXAMPLE_EVENT = {
  id: 'evt_3b9XkQ2mP7rT1vW4yZ6a',
  type: 'api.charge.payment',
  mode: 'test',
  created_at: '2026-11-28T09:00:00.000000Z',
  payload: {
    event_type: 'api.charge.payment',
    charge_id: 'order-1042',
    status: 'success',
    amount: 1000,
    currency: 'MWK',
  },
};

export const EventListResponse = SuccessEnvelope(
  Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    next_page_url: Type.Union([Type.String(), Type.Null()]),
    data: Type.Array(EventView),
  }),
);

export const EventResponse = SuccessEnvelope(EventView, 'success', {
  examples: [{ status: 'success', message: 'Event retrieved successfully.', data: EXAMPLE_EVENT }],
});

/** The stream's answer, for the API document: it is not serialised from a schema. */
export const EventStreamResponse = {
  description:
    'Server-Sent Events: one message per event (`id:` its cursor, `event:` its type, `data:` the event as `GET /events/{id}` shows it), and a `: heartbeat` comment every 15 s.',
  content: { 'text/event-stream': { schema: Type.String() } },
};
