import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { BalanceQuery, BalanceResponse } from './balance-schemas.ts';
import { merchantBalances } from './ledger-service.ts';
import type { Database } from '../db/database.ts';

/** `GET /wallet-balance`: read from the ledger, in the key's mode (docs/integrate/api-reference.md#balance). */
export function registerBalanceRoutes(app: App, { database: { db } }: { database: Pick<Database, 'db'> }): void {
  app.get(
    '/wallet-balance',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getWalletBalance',
        summary: 'Main and collection balances',
        querystring: BalanceQuery,
        response: { 200: BalanceResponse, ...errorResponses },
      },
    },
    async (request) => {
      const owner = principalOf(request);
      const currency = request.query.currency ?? 'MWK';
      const balances = await merchantBalances(db, owner.merchantId, owner.mode, currency);
      // As PayChangu answers: the main balance as decimal text, the collection balance as a number.
      return success('Wallet balances retrieved successfully', {
        environment: owner.mode,
        currency,
        main_balance: (balances.mainMinor / 100).toFixed(2),
        collection_balance: balances.collectionMinor / 100,
      });
    },
  );
}
