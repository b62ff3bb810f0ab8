import { Type } from '@sinclair/typebox';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { App } from '../http/app-type.ts';
import { errorResponses, success, SuccessEnvelope } from '../http/envelope.ts';
import { receiveCallback } from './callback-service.ts';

const CallbackParams = Type.Object({ connector: Type.String({ maxLength: 40 }) });
const CallbackResponse = SuccessEnvelope(Type.Null());

/**
 * `POST /callbacks/<connector>`: where live operators say something happened to a payment,
 * refund or payout. No key (operators have none of ours): each connector authenticates its own.
 * Answered 200 once the record was asked about, so the operator stops resending.
 */
export function registerCallbackRoutes(app: App, { payments }: { payments: PaymentDeps }): void {
  app.post(
    '/callbacks/:connector',
    {
      config: { servedWhenOverloaded: true },
      schema: {
        operationId: 'receiveOperatorCallback',
        summary: "A live operator's callback about a payment, refund or payout",
        params: CallbackParams,
        response: { 200: CallbackResponse, ...errorResponses },
      },
    },
    async (request) => {
      const headers = request.headers;
      const result = await receiveCallback(payments, request.params.connector, {
        headers,
        rawBody: request.rawJson ?? '',
        body: request.body,
      });
      return success(
        result === 'confirmed'
          ? 'Callback received.'
          : 'Callback received: no pending live transaction has this reference.',
        null,
      );
    },
  );
}
