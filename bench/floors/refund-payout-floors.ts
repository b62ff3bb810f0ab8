import { success } from '../../src/http/envelope.ts';
import { bankPayoutListPage } from '../../src/payouts/bank-payout-views.ts';
import { BankPayoutListResponse } from '../../src/payouts/payout-schemas.ts';
import { listBankPayouts } from '../../src/payouts/recipient-repository.ts';
import { findRefund } from '../../src/refunds/refund-repository.ts';
import { RefundResponse } from '../../src/refunds/refund-schemas.ts';
import { refundView } from '../../src/refunds/refund-views.ts';
import type { Floor } from './floor.ts';

/** A refund by its id and a page of the bank payouts list, as src/refunds' and src/payouts' routes answer them. */
export function registerRefundAndPayoutFloors({ app, db, owner, config }: Floor): void {
  app.get<{ Params: { refund_id: string } }>(
    '/refunds/:refund_id',
    { schema: { response: { 200: RefundResponse } } },
    async (request, reply) => {
      const refund = await findRefund(db, owner, request.params.refund_id);
      if (!refund) return reply.code(404).send();
      return success('Refund retrieved successfully.', refundView(refund));
    },
  );

  app.get<{ Querystring: { page?: string } }>(
    '/direct-charge/payouts',
    { schema: { response: { 200: BankPayoutListResponse } } },
    async (request) => {
      const page = Number(request.query.page ?? 1);
      const { rows, total } = await listBankPayouts(db, owner, page);
      return success(
        'Transactions retrieved successfully.',
        bankPayoutListPage(page, rows, total, config.publicBaseUrl),
      );
    },
  );
}
