import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../merchants/merchant-service.ts';

type Db = Kysely<DB>;

/**
 * Whether payments' money has been settled, as the payments export says: a settlement moves all
 * of a collection balance to main (settleCollections), so a payment is settled once its
 * currency's collection balance was settled after the payment was credited to it. Ledger entries
 * are numbered in the order they were written, which is the order compared.
 */
export interface Settlements {
  /** Whether the payment whose charge is `chargeRef`, in `currency`, is settled; false for one never credited. */
  settled(chargeRef: string, currency: string): boolean;
}

/** What tells, for the charges `chargeRefs` of `owner`, whether each was settled. */
export async function settlementsOf(db: Db, owner: Principal, chargeRefs: readonly string[]): Promise<Settlements> {
  const [lastSettlements, credits] = await Promise.all([
    lastSettlementEntries(db, owner),
    chargeRefs.length === 0 ? [] : collectionEntries(db, owner, chargeRefs),
  ]);
  const lastByCurrency = new Map(lastSettlements.map((row) => [row.currency, Number(row.entry)]));
  const creditByCharge = new Map(credits.map((row) => [row.reference, Number(row.entry)]));
  return {
    settled(chargeRef, currency) {
      const credit = creditByCharge.get(chargeRef);
      const last = lastByCurrency.get(currency);
      return credit !== undefined && last !== undefined && credit < last;
    },
  };
}

/** The last settlement entry of each of the merchant's collection balances in the mode. */
function lastSettlementEntries(db: Db, owner: Principal) {
  return (
    db
      .selectFrom('ledger_transactions as t')
      .innerJoin('ledger_entries as e', 'e.transaction_id', 't.id')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['a.currency', (eb) => eb.fn.max('e.id').as('entry')])
      // Settlements belong to no charge: the (reference, kind) index holds them under a null reference.
      .where('t.reference', 'is', null)
      .where('t.kind', '=', 'settlement')
      .where('t.mode', '=', owner.mode)
      .where('a.owner', '=', owner.merchantId)
      .where('a.kind', '=', 'collection')
      .groupBy('a.currency')
      .execute()
  );
}

/** The entry that credited each charge's collection to the merchant. */
function collectionEntries(db: Db, owner: Principal, chargeRefs: readonly string[]) {
  return db
    .selectFrom('ledger_transactions as t')
    .innerJoin('ledger_entries as e', 'e.transaction_id', 't.id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['t.reference', 'e.id as entry'])
    .where('t.reference', 'in', chargeRefs)
    .where('t.kind', '=', 'collection')
    .where('a.owner', '=', owner.merchantId)
    .where('a.mode', '=', owner.mode)
    .where('a.kind', '=', 'collection')
    .$narrowType<{ reference: string }>()
    .execute();
}
