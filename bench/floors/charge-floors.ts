import { success } from '../../src/http/envelope.ts';
import { findBankTransferWithLogs } from '../../src/core/bank-transfer-repository.ts';
import { BankTransferDetailsResponse } from '../../src/payments/bank-transfer-schemas.ts';
import { transferDetails } from '../../src/payments/bank-transfer-views.ts';
import { VERIFY_MESSAGES as CARD_VERIFY_MESSAGES } from '../../src/payments/card-routes.ts';
import { CardVerifyResponse } from '../../src/payments/card-schemas.ts';
import { findChargeWithLogsByChargeId } from '../../src/core/charge-repository.ts';
import { detailsRecord, verifyRecord } from '../../src/core/charge-views.ts';
import { VERIFY_MESSAGES } from '../../src/payments/mobile-money-routes.ts';
import { DetailsResponse, VerifyResponse } from '../../src/payments/mobile-money-schemas.ts';
import type { Floor } from './floor.ts';

type ChargeParams = { Params: { charge_id: string } };

/**
 * Reads of direct charges, as src/payments' routes answer them. The bench reads settled charges
 * only: for those the gateway's services (`verifyCharge`, `bankTransferDetails`,
 * `verifyCardCharge`) read the record with its logs and answer it, asking no provider
 * (`refreshCharge` returns a final charge as it is) and settling nothing (no `transaction_status`);
 * a card charge's check that it is one, and its code's expiry (for a charge still waiting for its
 * code), do not apply to it either. So each floor is that read, the view and the schema.
 */
export function registerChargeFloors({ app, db, owner }: Floor): void {
  app.get<ChargeParams>(
    '/mobile-money/payments/:charge_id/verify',
    { schema: { response: { 200: VerifyResponse } } },
    async (request, reply) => {
      const charge = await findChargeWithLogsByChargeId(db, owner, request.params.charge_id);
      if (!charge) return reply.code(404).send();
      return {
        status: 'successful' as const,
        message: VERIFY_MESSAGES[charge.status],
        data: verifyRecord(charge, charge.logs),
      };
    },
  );

  app.get<ChargeParams>(
    '/mobile-money/payments/:charge_id/details',
    { schema: { response: { 200: DetailsResponse } } },
    async (request, reply) => {
      const charge = await findChargeWithLogsByChargeId(db, owner, request.params.charge_id);
      if (!charge) return reply.code(404).send();
      return success('Transaction retrieved successfully.', detailsRecord(charge, charge.logs));
    },
  );

  app.get<ChargeParams>(
    '/direct-charge/transactions/:charge_id/details',
    { schema: { response: { 200: BankTransferDetailsResponse } } },
    async (request, reply) => {
      const transfer = await findBankTransferWithLogs(db, owner, request.params.charge_id);
      if (!transfer) return reply.code(404).send();
      return success('Transaction retrieved successfully.', transferDetails(transfer, transfer.logs));
    },
  );

  app.get<ChargeParams>(
    '/charge-card/verify/:charge_id',
    { schema: { response: { 200: CardVerifyResponse } } },
    async (request, reply) => {
      const charge = await findChargeWithLogsByChargeId(db, owner, request.params.charge_id);
      if (!charge) return reply.code(404).send();
      return success(CARD_VERIFY_MESSAGES[charge.status], verifyRecord(charge, charge.logs));
    },
  );
}
