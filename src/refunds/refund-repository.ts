import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB, RefundsTable } from '../db/schema.ts';
import { prepared } from '../db/prepared.ts';
import { spendableBalanceOf } from '../ledger/ledger-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Outcome } from '../connectors/provider.ts';
import { asChargeRef, type ChargeRef } from '../shared/ids.ts';

export type Refund = Selectable<RefundsTable>;
/** A refund with the public `charge_id` of the charge it gives back: what merchants read. */
export type RefundWithCharge = Refund & { charge_id: string };
type Db = Kysely<DB>;

/**
 * The provider state of a refund being handed to its provider: the request may have reached it
 * even if its answer never reached us (a crash, a timeout), so from here on it is only asked
 * about, never handed over again.
 */
export const HANDING_OVER = 'handing-over';

export async function insertRefund(trx: Db, refund: Insertable<RefundsTable>): Promise<void> {
  await trx.insertInto('refunds').values(refund).execute();
}

/**
 * Counts `amountMinor` more of a successful charge as given back, if that keeps the total within
 * what was paid (and, when `refundedBefore` is given, only while the total is still that): the new
 * total, or null otherwise. One conditional UPDATE, so of two refunds racing for the last money one
 * wins (it holds the row until its transaction ends on PostgreSQL; SQLite writes one transaction at
 * a time) and the other finds the total moved.
 */
export async function countRefunded(
  trx: Db,
  chargeRef: ChargeRef,
  amountMinor: number,
  now: number,
  refundedBefore?: number,
): Promise<number | null> {
  let update = trx
    .updateTable('charges')
    .set({ refunded_minor: sql`refunded_minor + ${amountMinor}`, updated_at: now })
    .where('id', '=', chargeRef)
    .where('status', '=', 'success')
    .where(sql<boolean>`refunded_minor + ${amountMinor} <= amount_minor`);
  if (refundedBefore !== undefined) update = update.where('refunded_minor', '=', refundedBefore);
  const row = await update.returning('refunded_minor').executeTakeFirst();
  return row ? Number(row.refunded_minor) : null;
}

/**
 * How much of a charge's fee its refunds give back, those that have not failed: read after
 * `countRefunded` in the same transaction, which holds the charge's row, so no other refund of it
 * changes this meanwhile.
 */
export async function feeReturnedOn(trx: Db, chargeRef: ChargeRef): Promise<number> {
  const row = await trx
    .selectFrom('refunds')
    .select(sql<number>`coalesce(sum(fee_returned_minor), 0)`.as('returned'))
    .where('charge_ref', '=', chargeRef)
    .where('status', '!=', 'failed')
    .executeTakeFirstOrThrow();
  return Number(row.returned);
}

/** A merchant refund that failed gives its amount back to what may still be refunded. */
export async function uncountRefunded(trx: Db, chargeRef: ChargeRef, amountMinor: number, now: number): Promise<void> {
  await trx
    .updateTable('charges')
    .set({ refunded_minor: sql`refunded_minor - ${amountMinor}`, updated_at: now })
    .where('id', '=', chargeRef)
    .execute();
}

const refundByRefundId = prepared((db, merchantId: string, mode: Principal['mode'], refundId: string) =>
  db
    .selectFrom('refunds')
    .innerJoin('charges', 'charges.id', 'refunds.charge_ref')
    .selectAll('refunds')
    .select('charges.charge_id')
    .where('refunds.merchant_id', '=', merchantId)
    .where('refunds.mode', '=', mode)
    .where('refunds.refund_id', '=', refundId),
);

/** A merchant's refund by its `refund_id`, in the key's mode. */
export async function findRefund(db: Db, owner: Principal, refundId: string): Promise<RefundWithCharge | undefined> {
  return (await refundByRefundId(db, owner.merchantId, owner.mode, refundId))[0];
}

/** Which refunds a list shows: those of one charge, of one checkout session's charges, or the latest of all. */
export type RefundScope = { chargeRef: ChargeRef } | { sessionId: string } | { latest: number };

/** A merchant's refunds in the key's mode, newest first. */
export function listRefunds(db: Db, owner: Principal, scope: RefundScope): Promise<RefundWithCharge[]> {
  let query = db
    .selectFrom('refunds')
    .innerJoin('charges', 'charges.id', 'refunds.charge_ref')
    .selectAll('refunds')
    .select('charges.charge_id')
    .where('refunds.merchant_id', '=', owner.merchantId)
    .where('refunds.mode', '=', owner.mode)
    .orderBy('refunds.created_at', 'desc')
    .orderBy('refunds.id', 'desc');
  if ('chargeRef' in scope) query = query.where('refunds.charge_ref', '=', scope.chargeRef);
  else if ('sessionId' in scope) query = query.where('charges.session_id', '=', scope.sessionId);
  else query = query.limit(scope.latest);
  return query.execute();
}

const dueRefunds = prepared((db, now: number, limit: number) =>
  db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', sql.lit('pending'))
    .where('check_at', '<=', now)
    .orderBy('check_at')
    .limit(limit),
);

/** Pending refunds to hand to their provider, or to ask about, by now. */
export function findDueRefunds(db: Db, now: number, limit: number): Promise<Refund[]> {
  return dueRefunds(db, now, limit);
}

/**
 * Takes the one right to hand a refund to its provider: true for the single caller that moved it
 * from "not handed over" to HANDING_OVER. `askAgainAt` is when it is asked about, should the
 * caller never record the provider's answer. A refund waiting for its balance has nothing
 * reserved, so it is never handed over.
 */
export async function claimHandOver(db: Db, id: string, askAgainAt: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ provider_state: HANDING_OVER, check_at: askAgainAt, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('provider_state', 'is', null)
    .where('pending_reason', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whose balance a refund draws on: the merchant's, in its mode and currency. */
export type RefundLine = Pick<Refund, 'merchant_id' | 'mode' | 'currency'>;

/**
 * Whether a refund of the line is waiting for the balance, of those asked for before `before`
 * (by time, then id) or of all when it is absent: waiting refunds go out in the order they were
 * asked for.
 */
export async function waitingBefore(
  db: Db,
  line: RefundLine,
  before?: Pick<Refund, 'created_at' | 'id'>,
): Promise<boolean> {
  let query = db
    .selectFrom('refunds')
    .select('id')
    .where('merchant_id', '=', line.merchant_id)
    .where('mode', '=', line.mode)
    .where('pending_reason', 'is not', null)
    .where('currency', '=', line.currency);
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.created_at),
        eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)]),
      ]),
    );
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/** A waiting refund, with the balance its merchant could give it when it was read. */
export type WaitingRefund = Refund & { spendable: number };

/**
 * The waiting refunds first in their line (no earlier refund of the merchant, mode and currency
 * waits) that the settler can move on: those the balance, read as it stands, covers, and those
 * still waiting for the reason `behind` (behind earlier refunds, which have gone). Only these, so
 * that lines the balance does not cover cost a look at the partial index and nothing more, and
 * never keep others from their turn; oldest first.
 */
export function findMovableWaitingRefunds(db: Db, behind: string, limit: number): Promise<WaitingRefund[]> {
  const spendable = spendableBalanceOf('refunds.merchant_id', 'refunds.mode', 'refunds.currency');
  return db
    .selectFrom('refunds')
    .selectAll('refunds')
    .select(spendable.as('spendable'))
    .where('refunds.pending_reason', 'is not', null)
    .where(({ eb, exists, not, selectFrom }) =>
      eb.and([
        not(
          exists(
            selectFrom('refunds as earlier')
              .select('earlier.id')
              .whereRef('earlier.merchant_id', '=', 'refunds.merchant_id')
              .whereRef('earlier.mode', '=', 'refunds.mode')
              .whereRef('earlier.currency', '=', 'refunds.currency')
              .where('earlier.pending_reason', 'is not', null)
              .where((inner) =>
                inner.or([
                  inner('earlier.created_at', '<', inner.ref('refunds.created_at')),
                  inner.and([
                    inner('earlier.created_at', '=', inner.ref('refunds.created_at')),
                    inner('earlier.id', '<', inner.ref('refunds.id')),
                  ]),
                ]),
              ),
          ),
        ),
        eb.or([
          eb('refunds.pending_reason', '=', behind),
          eb(spendable, '>=', sql<number>`refunds.amount_minor - refunds.fee_returned_minor`),
        ]),
      ]),
    )
    .orderBy('refunds.created_at')
    .orderBy('refunds.id')
    .limit(limit)
    .execute()
    .then((rows) => rows.map((row) => ({ ...row, spendable: Number(row.spendable) })));
}

/** A refund by its row id. */
export function findRefundRow(db: Db, id: string): Promise<Refund | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Ends a refund's wait, if it still waits for `reason`: it is due to be handed to its provider now,
 * and its reasons (`pending_reasons`) become `reasons`. False when another process changed it first.
 */
export async function endWait(db: Db, id: string, reason: string, reasons: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ pending_reason: null, pending_reasons: reasons, check_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('pending_reason', '=', reason)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives a waiting refund another reason, if it still waits for `from`; false when another process changed it first. */
export async function changeWaitReason(
  db: Db,
  id: string,
  change: { from: string; to: string; reasons: string },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ pending_reason: change.to, pending_reasons: change.reasons, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('pending_reason', '=', change.from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What the provider said when it took the refund: its state, and when to ask about it. */
export async function recordHandedOver(
  db: Db,
  id: string,
  providerState: string,
  checkAt: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ provider_state: providerState, check_at: checkAt, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * The pending refunds a callback may be about: the refund with this id, or those of the charge
 * with this id; not those waiting for their balance, which no provider has.
 */
export function findPendingRefundsAbout(db: Db, reference: string, mode: Refund['mode']): Promise<Refund[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('pending_reason', 'is', null)
    .where('mode', '=', mode)
    .where((eb) => eb.or([eb('id', '=', reference), eb('charge_ref', '=', asChargeRef(reference))]))
    .execute();
}

/** Flags a pending refund for a person to look at, once: true for the one caller that flagged it. */
export async function flagRefundForReview(db: Db, id: string, reason: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ review_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('review_reason', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends a pending refund with the provider's outcome (and the operator's id for it); only the first caller gets the row back. */
export function finalizeRefund(db: Db, id: string, outcome: Outcome, now: number): Promise<Refund | undefined> {
  return db
    .updateTable('refunds')
    .set({
      status: outcome.status,
      failure_reason: outcome.status === 'failed' ? outcome.reason : null,
      trans_id: outcome.status === 'success' ? outcome.transId : null,
      check_at: null,
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
