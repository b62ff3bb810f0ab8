import type { PaymentDeps } from '../core/payment-deps.ts';
import type { Config } from '../config.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { normalizeBody, normalizing } from '../http/tolerance.ts';
import { startCardCharge, verifyCardCharge } from './card-charges.ts';
import { CardChargeBody, CardChargeResponse, CardVerifyResponse } from './card-schemas.ts';
import { verifyRecord } from '../core/charge-views.ts';
import { ChargeIdParams } from '../core/charge-schemas.ts';
import { threeDsLink, threeDsReturnLink } from './three-ds-page-routes.ts';

export const VERIFY_MESSAGES = {
  success: 'Payment authorized and completed successfully.',
  pending: 'Payment is pending: the customer has not completed 3-D Secure yet.',
  failed: 'Payment failed.',
} as const;

/** Direct card charges (docs/integrate/api-reference.md#card-charges); their refunds are under src/refunds/, their 3-D Secure page in three-ds-page-routes.ts. */
export function registerCardRoutes(app: App, { payments, config }: { payments: PaymentDeps; config: Config }): void {
  app.post(
    '/charge-card/payments',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalizing(normalizeBody),
      schema: {
        operationId: 'chargeCard',
        summary: 'Charge a card: answers the 3-D Secure link to send the customer to (no envelope)',
        body: CardChargeBody,
        response: { 200: CardChargeResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { charge, authentication } = await startCardCharge(
        payments,
        principalOf(request),
        request.body,
        (reference) => threeDsReturnLink(config, reference),
      );
      // A replay of a charge whose code is already with the issuer has nothing left to authenticate.
      return {
        success: true as const,
        requires_3ds_auth: charge.next_action !== 'confirming',
        orderReference: authentication.reference,
        '3ds_auth_link': threeDsLink(config, authentication.reference),
      };
    },
  );

  app.get(
    '/charge-card/verify/:charge_id',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'verifyCardCharge',
        summary: 'Verify a card charge',
        params: ChargeIdParams,
        response: { 200: CardVerifyResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { charge, logs } = await verifyCardCharge(payments, principalOf(request), request.params.charge_id);
      return success(VERIFY_MESSAGES[charge.status], verifyRecord(charge, logs));
    },
  );
}
