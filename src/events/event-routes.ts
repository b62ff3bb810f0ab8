import { Type } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { App } from '../http/app-type.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, ErrorEnvelope, success } from '../http/envelope.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError } from '../shared/errors.ts';
import type { EventHub } from './event-hub.ts';
import { EventListResponse, EventParams, EventQuery, EventResponse, EventStreamResponse } from './event-schemas.ts';
import { DEFAULT_PER_PAGE, listEvents, showEvent } from './event-service.ts';
import { openEventStream, sendEventStream } from './event-stream.ts';
import { eventView } from './event-views.ts';

/** A merchant reads its events (the bodies its webhooks carry), scoped to its key's mode, and listens to them as they happen. */
export function registerEventRoutes(
  app: App,
  {
    config,
    database: { db },
    clock,
    events: hub,
  }: { config: Config; database: Pick<Database, 'db'>; clock: Clock; events: EventHub },
): void {
  app.get(
    '/events',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listEvents',
        summary: 'List events, latest first',
        description:
          "The key's merchant's events in the key's mode, each with the body its webhook carries, of one `type` and within `from`…`to` when asked.",
        querystring: EventQuery,
        response: { 200: EventListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { type, from, to } = request.query;
      const page = Number(request.query.page ?? 1);
      const perPage = Number(request.query.per_page ?? DEFAULT_PER_PAGE);
      const result = await listEvents(db, principalOf(request), { type, from, to }, page, perPage);
      const totalPages = Math.max(1, Math.ceil(result.total / perPage));
      const next = new URLSearchParams({ ...request.query, page: String(page + 1), per_page: String(perPage) });
      return success('Events retrieved successfully.', {
        current_page: page,
        total_pages: totalPages,
        per_page: perPage,
        total: result.total,
        next_page_url: page < totalPages ? `${config.publicBaseUrl}/events?${next.toString()}` : null,
        data: result.rows.map(eventView),
      });
    },
  );

  app.get(
    '/events/stream',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'streamEvents',
        summary: 'Listen to events as they happen (Server-Sent Events)',
        description:
          'What `lipira listen` reads. Test keys only, unless the operator sets `EVENTS_STREAM_LIVE=on` (403 otherwise). Reconnecting with `Last-Event-ID` replays the events since that one, from 5 s before it: an event may come twice, and its `id` tells.',
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 200 })) }),
        response: {
          200: EventStreamResponse,
          ...errorResponses,
          403: Type.Ref(ErrorEnvelope),
          503: Type.Ref(ErrorEnvelope),
        },
      },
    },
    async (request, reply) => {
      const owner = principalOf(request);
      if (owner.mode === 'live' && !config.eventsStreamLive) throw new ApiError('liveStreamRefused');
      if (!hub.open()) throw new ApiError('unavailable');
      const stream = openEventStream({ db, clock, hub, log: request.log }, owner, request.headers['last-event-id']);
      return sendEventStream(reply, stream);
    },
  );

  app.get(
    '/events/:id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getEvent',
        summary: 'An event, with the body its webhook carries',
        params: EventParams,
        response: { 200: EventResponse, ...errorResponses },
      },
    },
    async (request) =>
      success('Event retrieved successfully.', eventView(await showEvent(db, principalOf(request), request.params.id))),
  );
}
