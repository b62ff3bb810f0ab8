import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { principalOf } from '../http/auth.ts';
import type { App } from '../http/app-type.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError } from '../shared/errors.ts';
import { listLinks } from './payment-link-repository.ts';
import {
  LinkCreateBody,
  LinkIdParams,
  LinkListQuery,
  LinkListResponse,
  LinkPaymentsResponse,
  LinkResponse,
  LinkUpdateBody,
  type LinkCreateInput,
} from './payment-link-schemas.ts';
import { changeLink, createLink, linkPayments, showLink, type LinkInput } from './payment-link-service.ts';
import { linkPaymentView, linkView } from './payment-link-views.ts';

const DEFAULT_PER_PAGE = 20;

export interface PaymentLinkContext {
  config: Pick<Config, 'publicBaseUrl' | 'checkoutTtlMs' | 'liveRoutes'>;
  database: Pick<Database, 'db' | 'transact'>;
  clock: Clock;
}

export const paymentLinkDeps = ({ config, database, clock }: PaymentLinkContext) => ({
  db: database.db,
  transact: database.transact,
  clock,
  checkoutTtlMs: config.checkoutTtlMs,
  liveRoutes: config.liveRoutes,
});

/**
 * Payment links (docs/integrate/api-reference.md#payment-links), with a secret key, in the key's
 * mode: a test key makes and reads test links, a live key live ones.
 */
export function registerPaymentLinkRoutes(app: App, ctx: PaymentLinkContext): void {
  const deps = paymentLinkDeps(ctx);
  const base = ctx.config.publicBaseUrl;

  app.post(
    '/payment-links',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'createPaymentLink',
        summary: 'Create a payment link: a page at /pay/{slug} any customer can pay',
        body: LinkCreateBody,
        response: { 201: LinkResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const link = await createLink(deps, principalOf(request), linkInput(request.body));
      return reply.code(201).send(success('Payment link created successfully.', linkView(link, base)));
    },
  );

  app.get(
    '/payment-links',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listPaymentLinks',
        summary: 'List payment links, newest first',
        querystring: LinkListQuery,
        response: { 200: LinkListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const page = Number(request.query.page ?? 1);
      const perPage = Number(request.query.per_page ?? DEFAULT_PER_PAGE);
      const result = await listLinks(deps.db, principalOf(request), page, perPage);
      const totalPages = Math.max(1, Math.ceil(result.total / perPage));
      const next = new URLSearchParams({ page: String(page + 1), per_page: String(perPage) });
      return success('Payment links retrieved successfully.', {
        current_page: page,
        total_pages: totalPages,
        per_page: perPage,
        total: result.total,
        next_page_url: page < totalPages ? `${base}/payment-links?${next.toString()}` : null,
        data: result.rows.map((link) => linkView(link, base)),
      });
    },
  );

  app.get(
    '/payment-links/:id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getPaymentLink',
        summary: 'A payment link',
        params: LinkIdParams,
        response: { 200: LinkResponse, ...errorResponses },
      },
    },
    async (request) =>
      success(
        'Payment link retrieved successfully.',
        linkView(await showLink(deps.db, principalOf(request), request.params.id), base),
      ),
  );

  app.patch(
    '/payment-links/:id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'updatePaymentLink',
        summary: "Change a payment link's title or description, or deactivate and reactivate it",
        params: LinkIdParams,
        body: LinkUpdateBody,
        response: { 200: LinkResponse, ...errorResponses },
      },
    },
    async (request) =>
      success(
        'Payment link updated successfully.',
        linkView(await changeLink(deps, principalOf(request), request.params.id, request.body), base),
      ),
  );

  app.get(
    '/payment-links/:id/payments',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listPaymentLinkPayments',
        summary: "A payment link's payments (its paid checkout sessions), newest first, the latest 100",
        params: LinkIdParams,
        response: { 200: LinkPaymentsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const link = await showLink(deps.db, principalOf(request), request.params.id);
      const payments = await linkPayments(deps.db, link);
      return success('Payment link payments retrieved successfully.', payments.map(linkPaymentView));
    },
  );
}

/** The body as the service takes it: the expiry read as a time, refused by name when it is none. */
function linkInput(body: LinkCreateInput): LinkInput {
  const { expires_at: expiresAt, ...rest } = body;
  if (expiresAt === undefined) return rest;
  const time = Date.parse(expiresAt);
  if (Number.isNaN(time)) throw ApiError.field('expires_at', 'The expires at is not a valid date.');
  return { ...rest, expires_at: time };
}
