import { principalOf } from '../http/auth.ts';
import type { App } from '../http/app-type.ts';
import { errorResponses, success } from '../http/envelope.ts';
import { normalizeBody, normalizing } from '../http/tolerance.ts';
import { ApiError } from '../shared/errors.ts';
import {
  CardRefundBody,
  RefundBody,
  RefundChargeParams,
  RefundCreatedResponse,
  RefundIdParams,
  RefundListQuery,
  RefundListResponse,
  RefundResponse,
} from './refund-schemas.ts';
import { refundPayment, refundsOf, showRefund, type RefundDeps, type RefundTarget } from './refund-service.ts';
import { refundView } from './refund-views.ts';

const INITIATED = 'Refund initiated successfully.';

/**
 * Refunds (docs/integrate/api-reference.md#refunds), with a secret key, in the key's mode: PayChangu's card refund route,
 * and refunds of any successful payment by `charge_id` or checkout `tx_ref`, read back by id or by
 * payment.
 */
export function registerRefundRoutes(
  app: App,
  { payments: deps }: { payments: Pick<RefundDeps, 'db' | 'transact' | 'clock' | 'refundReturnsFee'> },
): void {
  const { db } = deps;
  const normalize = normalizing(normalizeBody);

  app.post(
    '/charge-card/refund/:charge_id',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalize,
      schema: {
        operationId: 'refundCardCharge',
        summary: 'Refund a card payment, in full (no body) or in part',
        params: RefundChargeParams,
        body: CardRefundBody,
        response: { 200: RefundCreatedResponse, ...errorResponses },
      },
    },
    async (request) => {
      const refund = await refundPayment(
        deps,
        principalOf(request),
        { chargeId: request.params.charge_id },
        request.body,
        { cardOnly: true },
      );
      return success(INITIATED, refundView(refund));
    },
  );

  app.post(
    '/refunds',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalize,
      schema: {
        operationId: 'createRefund',
        summary: 'Refund a payment of any channel by charge_id or tx_ref, in full or in part',
        body: RefundBody,
        response: { 201: RefundCreatedResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { charge_id: chargeId, tx_ref: txRef, amount, currency, reason } = request.body;
      const refund = await refundPayment(deps, principalOf(request), oneTarget(chargeId, txRef), {
        amount,
        currency,
        reason,
      });
      return reply.code(201).send(success(INITIATED, refundView(refund)));
    },
  );

  app.get(
    '/refunds/:refund_id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getRefund',
        summary: 'A refund',
        params: RefundIdParams,
        response: { 200: RefundResponse, ...errorResponses },
      },
    },
    async (request) =>
      success(
        'Refund retrieved successfully.',
        refundView(await showRefund(db, principalOf(request), request.params.refund_id)),
      ),
  );

  app.get(
    '/refunds',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listRefunds',
        summary: "A payment's refunds (charge_id or tx_ref), or the latest 100; newest first",
        querystring: RefundListQuery,
        response: { 200: RefundListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { charge_id: chargeId, tx_ref: txRef } = request.query;
      if (chargeId !== undefined && txRef !== undefined) throw bothNamed();
      const refunds = await refundsOf(db, principalOf(request), { chargeId, txRef });
      return success('Refunds retrieved successfully.', refunds.map(refundView));
    },
  );
}

/** A refund names its payment one way: by `charge_id`, or by the checkout session's `tx_ref`. */
function oneTarget(chargeId: string | undefined, txRef: string | undefined): RefundTarget {
  if (chargeId !== undefined && txRef !== undefined) throw bothNamed();
  if (chargeId !== undefined) return { chargeId };
  if (txRef !== undefined) return { txRef };
  throw ApiError.field('charge_id', 'The charge id field is required when tx ref is not present.');
}

const bothNamed = () => ApiError.field('charge_id', 'The charge id field prohibits tx ref from being present.');
