import type { PaymentDeps } from '../core/payment-deps.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { normalizeBody, normalizing } from '../http/tolerance.ts';
import { chargeDetails, verifyCharge } from './charge-lookup.ts';
import { chargeRecord, detailsRecord, verifyRecord } from '../core/charge-views.ts';
import { initializeCharge } from './direct-charges.ts';
import {
  DetailsResponse,
  InitializeChargeBody,
  OperatorsResponse,
  VerifyQuery,
  VerifyResponse,
} from './mobile-money-schemas.ts';
import { ChargeIdParams, ChargeRecordResponse } from '../core/charge-schemas.ts';
import { OPERATORS } from '../core/operators.ts';

export const VERIFY_MESSAGES = {
  success: 'Payment authorized and completed successfully.',
  pending: 'Payment is pending: the customer has not approved it yet.',
  failed: 'Payment failed.',
} as const;

/** Direct mobile money charges (docs/integrate/api-reference.md#mobile-money-charges), over the same charge records as checkout attempts and payouts (src/payouts/). */
export function registerMobileMoneyRoutes(app: App, { payments }: { payments: PaymentDeps }): void {
  const normalize = normalizing(normalizeBody);

  app.get(
    '/mobile-money',
    {
      schema: {
        operationId: 'listMobileMoneyOperators',
        summary: 'Mobile money operators (no key needed)',
        response: { 200: OperatorsResponse },
      },
    },
    async () => success('Supported mobile money operators retrieved successfully.', OPERATORS),
  );

  app.post(
    '/mobile-money/payments/initialize',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalize,
      schema: {
        operationId: 'chargeMobileMoney',
        summary: 'Charge a mobile money wallet',
        body: InitializeChargeBody,
        response: { 201: ChargeRecordResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const charge = await initializeCharge(payments, principalOf(request), request.body);
      return reply.code(201).send(success('Payment initiated successfully.', chargeRecord(charge)));
    },
  );

  app.get(
    '/mobile-money/payments/:charge_id/verify',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'verifyMobileMoneyCharge',
        summary: 'Verify a charge; test keys may settle it with transaction_status',
        params: ChargeIdParams,
        querystring: VerifyQuery,
        response: { 200: VerifyResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { charge, logs } = await verifyCharge(payments, principalOf(request), request.params.charge_id, {
        transactionStatus: request.query.transaction_status,
        now: payments.clock.now(),
      });
      return {
        status: 'successful' as const,
        message: VERIFY_MESSAGES[charge.status],
        data: verifyRecord(charge, logs),
      };
    },
  );

  app.get(
    '/mobile-money/payments/:charge_id/details',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getMobileMoneyCharge',
        summary: 'A charge or payout',
        params: ChargeIdParams,
        response: { 200: DetailsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { charge, logs } = await chargeDetails(
        payments,
        principalOf(request),
        request.params.charge_id,
        payments.clock.now(),
      );
      return success('Transaction retrieved successfully.', detailsRecord(charge, logs));
    },
  );
}
