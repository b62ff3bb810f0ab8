import type { PaymentDeps } from '../core/payment-deps.ts';
import type { App } from '../http/app-type.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import { normalizeBody, normalizing } from '../http/tolerance.ts';
import {
  BankTransferDetailsResponse,
  InitializeBankTransferBody,
  InitializeBankTransferResponse,
  TransferDetailsQuery,
} from './bank-transfer-schemas.ts';
import { initializedTransfer, transferDetails } from './bank-transfer-views.ts';
import { bankTransferDetails, initializeBankTransfer } from './bank-transfers.ts';
import { ChargeIdParams } from '../core/charge-schemas.ts';

/** Bank transfer charges into a one-time account (docs/integrate/api-reference.md#bank-transfer-charges). */
export function registerBankTransferRoutes(app: App, { payments }: { payments: PaymentDeps }): void {
  app.post(
    '/direct-charge/payments/initialize',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalizing(normalizeBody),
      schema: {
        operationId: 'chargeBankTransfer',
        summary: 'Charge by bank transfer: opens a one-time account, valid for an hour, for the exact amount',
        body: InitializeBankTransferBody,
        response: { 201: InitializeBankTransferResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { charge, account } = await initializeBankTransfer(payments, principalOf(request), request.body);
      return reply.code(201).send(success('Payment initialized successfully.', initializedTransfer(charge, account)));
    },
  );

  app.get(
    '/direct-charge/transactions/:charge_id/details',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getBankTransferCharge',
        summary: 'A bank transfer charge, with who paid and its logs; test keys may settle it with transaction_status',
        params: ChargeIdParams,
        querystring: TransferDetailsQuery,
        response: { 200: BankTransferDetailsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const transfer = await bankTransferDetails(
        payments,
        principalOf(request),
        request.params.charge_id,
        request.query.transaction_status,
      );
      return success('Transaction retrieved successfully.', transferDetails(transfer, transfer.logs));
    },
  );
}
