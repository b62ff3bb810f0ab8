import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { checkoutDeps, type CheckoutContext } from '../checkout/checkout-service.ts';
import { CurrentVerifyResponse, TxRefParams } from '../checkout/checkout-schemas.ts';
import { currentVerifyView } from '../checkout/checkout-views.ts';
import { ChargeIdParams, ChargeRecordResponse } from '../core/charge-schemas.ts';
import { chargeRecord } from '../core/charge-views.ts';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { App } from '../http/app-type.ts';
import { principalOf } from '../http/auth.ts';
import { success } from '../http/envelope.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { DeliverySummaryResponse } from '../webhooks/webhook-schemas.ts';
import { deliverySummary } from '../webhooks/webhook-views.ts';
import { completePayment, receiveTransfer } from './charge-outcomes.ts';
import { expireSessionNow, retryDeliveryNow, settleNow } from './due-now.ts';
import { CompleteBody, helperErrorResponses, ReceiveBody, SettlementRunResponse } from './test-helper-schemas.ts';

/**
 * The test helpers (docs/decisions.md#2026-11-28--test-helpers-run-the-real-path-and-trigger-pays-as-a-customer):
 * with a test key, make happen now what a developer would otherwise wait for or could not do from
 * a desk (a session's time running out, a customer's answer, a bank transfer, a settlement, a
 * webhook's next try).
 * With a live key they do not exist: 404, as for any unknown route.
 */
export function registerTestHelperRoutes(app: App, ctx: CheckoutContext & { payments: PaymentDeps }): void {
  const { payments, database, clock } = ctx;
  const checkout = checkoutDeps(ctx);

  app.post(
    '/test-helpers/checkout-sessions/:tx_ref/expire',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'expireCheckoutSession',
        summary: 'Expire a pending checkout session now, as its time running out would',
        description:
          'The session ends `failed` (expired), with its log line, exactly as the first read after its expiry ends it; its page then shows it expired. Test keys only.',
        params: TxRefParams,
        response: { 200: CurrentVerifyResponse, ...helperErrorResponses },
      },
    },
    async (request) => {
      const verified = await expireSessionNow(checkout, testOwner(request), request.params.tx_ref);
      return success('Checkout session expired.', currentVerifyView(verified));
    },
  );

  app.post(
    '/test-helpers/direct-charges/:charge_id/complete',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'completeDirectCharge',
        summary: "End a pending payment as its customer's answer would",
        description:
          'A mobile money charge waiting for approval, a card charge waiting for 3-D Secure, a bank transfer waiting for its transfer: ends it through the same completion as the settler, with the ledger, the webhook and the receipt. Test keys only.',
        params: ChargeIdParams,
        body: CompleteBody,
        response: { 200: ChargeRecordResponse, ...helperErrorResponses },
      },
    },
    async (request) => {
      const charge = await completePayment(payments, testOwner(request), request.params.charge_id, request.body);
      return success('Payment completed.', chargeRecord(charge));
    },
  );

  app.post(
    '/test-helpers/bank-transfers/:charge_id/receive',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'receiveBankTransfer',
        summary: "A transfer arrives in a bank transfer charge's account",
        description:
          'The exact amount pays the charge (who paid is the sandbox payer); any other amount is returned to the payer and fails the charge, as a real transfer of the wrong amount does. Test keys only.',
        params: ChargeIdParams,
        body: ReceiveBody,
        response: { 200: ChargeRecordResponse, ...helperErrorResponses },
      },
    },
    async (request) => {
      const charge = await receiveTransfer(payments, testOwner(request), request.params.charge_id, request.body.amount);
      return success('Transfer received.', chargeRecord(charge));
    },
  );

  app.post(
    '/test-helpers/settlements/run',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'runSettlements',
        summary: "Settle the merchant's test collections into the main balance now",
        description:
          "What the settlement worker does when `TEST_SETTLEMENT` comes round, for this merchant's test money only. Test keys only.",
        response: { 200: SettlementRunResponse, ...helperErrorResponses },
      },
    },
    async (request) => {
      const settled = await settleNow(database.db, testOwner(request), clock.now());
      return success('Settlement run.', { settled_balances: settled });
    },
  );

  app.post(
    '/test-helpers/webhooks/:delivery_id/retry-now',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'retryWebhookNow',
        summary: 'Send a webhook delivery waiting for its next try now',
        description:
          'The delivery becomes due and the webhook worker sends it at once, signed and recorded as any try; a delivered or finally failed one is for `redeliver`. Test keys only.',
        params: Type.Object({ delivery_id: Type.String() }),
        response: { 200: DeliverySummaryResponse, ...helperErrorResponses },
      },
    },
    async (request) => {
      const delivery = await retryDeliveryNow(database.db, testOwner(request), request.params.delivery_id, clock.now());
      return success('Webhook delivery due now.', deliverySummary(delivery));
    },
  );
}

/** The key's merchant, for a test key; with a live key the test helpers are not there at all. */
function testOwner(request: FastifyRequest): Principal {
  const owner = principalOf(request);
  if (owner.mode !== 'test') throw new ApiError('routeNotFound');
  return owner;
}
