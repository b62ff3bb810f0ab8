import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import type { Charge } from '../../core/charge-repository.ts';
import type { ChargeRef } from '../../shared/ids.ts';

type Db = Kysely<DB>;

/** A payout as the dashboard shows it: its charge row and, for a payout through the banks list, where it went. */
export type PayoutRow = Charge & {
  bank_name: string | null;
  account_name: string | null;
  account_number: string | null;
};

/** Where a page of the list starts: after the payout made at `createdAt` with id `id`, going back in time. */
export interface PayoutCursor {
  createdAt: number;
  id: ChargeRef;
}

export const PAYOUTS_PER_PAGE = 25;

function payouts(db: Db, owner: Principal) {
  return (
    db
      .selectFrom('charges')
      .leftJoin('payout_recipients', 'payout_recipients.charge_ref', 'charges.id')
      .selectAll('charges')
      .select(['payout_recipients.bank_name', 'payout_recipients.account_name', 'payout_recipients.account_number'])
      .where('charges.merchant_id', '=', owner.merchantId)
      .where('charges.mode', '=', owner.mode)
      // Literally, not as a bound parameter: only then do both planners see that the partial index
      // over payouts (migration 0016) holds every row this can select.
      .where(sql<boolean>`charges.kind = 'payout'`)
  );
}

/**
 * One page of the merchant's payouts in one mode, newest first, after `cursor` (keyset: the same
 * cost on page 1 and page 1,000), with one row more than a page to tell whether another follows.
 * Every payout counts: those made through the banks list (the dashboard's, with a recipient) and
 * those made with `POST /mobile-money/payouts/initialize` (the wallet on the charge).
 */
export function listPayouts(db: Db, owner: Principal, cursor: PayoutCursor | null): Promise<PayoutRow[]> {
  let query = payouts(db, owner);
  if (cursor) {
    query = query.where((eb) =>
      eb.or([
        eb('charges.created_at', '<', cursor.createdAt),
        eb.and([eb('charges.created_at', '=', cursor.createdAt), eb('charges.id', '<', cursor.id)]),
      ]),
    );
  }
  return query
    .orderBy('charges.created_at', 'desc')
    .orderBy('charges.id', 'desc')
    .limit(PAYOUTS_PER_PAGE + 1)
    .execute();
}

/** One of the merchant's payouts in one mode by its own id; none for another merchant's, the other mode's, or a payment. */
export function findPayout(db: Db, owner: Principal, id: ChargeRef): Promise<PayoutRow | undefined> {
  return payouts(db, owner).where('charges.id', '=', id).executeTakeFirst();
}

/** The payout a `charge_id` named, to send a form posted twice to the payout its first post made. */
export function findPayoutByChargeId(db: Db, owner: Principal, chargeId: string): Promise<PayoutRow | undefined> {
  return payouts(db, owner).where('charges.charge_id', '=', chargeId).executeTakeFirst();
}

/** A recipient the merchant paid through the dashboard's payouts form, with the newest payout to it. */
export interface SavedRecipient {
  payoutRef: ChargeRef;
  bank_uuid: string;
  bank_name: string;
  account_name: string;
  account_number: string;
}

/** How many of the newest dashboard payouts the choice of saved recipients is drawn from, and how many it offers. */
const RECENT_DASHBOARD_PAYOUTS = 50;
const SAVED_RECIPIENTS = 5;

/**
 * The recipients of the merchant's latest payouts made through the dashboard's form in one mode
 * (their `charge_id` is the form's `dash_…`), each once, newest first: those an automatic payout
 * may be sent to without typing them again. Payouts the merchant's server made go to its customers.
 */
export async function savedRecipients(db: Db, owner: Principal): Promise<SavedRecipient[]> {
  const rows = await db
    .selectFrom('payout_recipients')
    .innerJoin('charges', 'charges.id', 'payout_recipients.charge_ref')
    .select([
      'payout_recipients.charge_ref',
      'payout_recipients.bank_uuid',
      'payout_recipients.bank_name',
      'payout_recipients.account_name',
      'payout_recipients.account_number',
    ])
    .where('payout_recipients.merchant_id', '=', owner.merchantId)
    .where('payout_recipients.mode', '=', owner.mode)
    .where(sql<string>`substr(charges.charge_id, 1, 5)`, '=', 'dash_')
    .orderBy('payout_recipients.created_at', 'desc')
    .orderBy('payout_recipients.charge_ref', 'desc')
    .limit(RECENT_DASHBOARD_PAYOUTS)
    .execute();
  const seen = new Set<string>();
  const saved: SavedRecipient[] = [];
  for (const { charge_ref, ...recipient } of rows) {
    const key = JSON.stringify([recipient.bank_uuid, recipient.account_number, recipient.account_name]);
    if (seen.has(key)) continue;
    seen.add(key);
    saved.push({ payoutRef: charge_ref, ...recipient });
  }
  return saved.slice(0, SAVED_RECIPIENTS);
}
