import type { Config } from '../config.ts';
import type { Clock } from '../shared/clock.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import {
  DeliveryDetailResponse,
  DeliveryListResponse,
  DeliveryParams,
  DeliveryQuery,
  DeliverySummaryResponse,
} from './webhook-schemas.ts';
import { DEFAULT_PER_PAGE, listDeliveries, redeliver, showDelivery } from './webhook-service.ts';
import { attemptView, deliverySummary } from './webhook-views.ts';
import type { Database } from '../db/database.ts';

/** A merchant reads and re-sends its webhook deliveries, scoped to its key's mode. */
export function registerWebhookRoutes(
  app: App,
  { config, database: { db }, clock }: { config: Config; database: Pick<Database, 'db'>; clock: Clock },
): void {
  app.get(
    '/webhooks/deliveries',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries, latest first',
        querystring: DeliveryQuery,
        response: { 200: DeliveryListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { status, tx_ref: txRef, charge_id: chargeId } = request.query;
      const page = Number(request.query.page ?? 1);
      const perPage = Number(request.query.per_page ?? DEFAULT_PER_PAGE);
      const result = await listDeliveries(db, principalOf(request), { status, txRef, chargeId }, page, perPage);
      const totalPages = Math.max(1, Math.ceil(result.total / perPage));
      const next = new URLSearchParams({ ...request.query, page: String(page + 1), per_page: String(perPage) });
      return success('Webhook deliveries retrieved successfully.', {
        current_page: page,
        total_pages: totalPages,
        per_page: perPage,
        total: result.total,
        next_page_url: page < totalPages ? `${config.publicBaseUrl}/webhooks/deliveries?${next.toString()}` : null,
        data: result.rows.map(deliverySummary),
      });
    },
  );

  app.get(
    '/webhooks/deliveries/:id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getWebhookDelivery',
        summary: 'A webhook delivery with its attempts',
        params: DeliveryParams,
        response: { 200: DeliveryDetailResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { delivery, attempts } = await showDelivery(db, principalOf(request), request.params.id);
      return success('Webhook delivery retrieved successfully.', {
        ...deliverySummary(delivery),
        payload: JSON.parse(delivery.payload) as Record<string, unknown>,
        attempts: attempts.map(attemptView),
      });
    },
  );

  app.post(
    '/webhooks/deliveries/:id/redeliver',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'redeliverWebhook',
        summary: 'Send a webhook delivery again',
        params: DeliveryParams,
        response: { 200: DeliverySummaryResponse, ...errorResponses },
      },
    },
    async (request) =>
      success(
        'Webhook delivery queued for redelivery.',
        deliverySummary(await redeliver(db, principalOf(request), request.params.id, clock.now())),
      ),
  );
}
