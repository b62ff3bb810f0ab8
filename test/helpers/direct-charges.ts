import type { Database } from '../../src/db/database.ts';
import type { Principal } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { hashDirectRequest, insertDirectRecord, type DirectRequest } from '../../src/core/direct-records.ts';
import { parseMalawiMobile } from '../../src/shared/phone.ts';

/**
 * A direct mobile money payment recorded as the direct charge service records one, waiting for
 * the customer's approval: how tests make live charges, which no connected operator settles here.
 */
export async function recordDirectPayment(
  database: Pick<Database, 'db' | 'transact'>,
  owner: Principal,
  request: DirectRequest,
): Promise<Charge> {
  const { charge } = await insertDirectRecord(
    database,
    {
      owner,
      request,
      kind: 'payment',
      type: 'Direct API Payment',
      wallet: parseMalawiMobile(request.mobile)!,
      hash: hashDirectRequest('payment', request),
      feeMinor: 0,
      nextAction: 'approve',
      providerState: null,
      checkAt: null,
    },
    Date.now(),
  );
  return charge;
}
