import type { Kysely } from 'kysely';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { findSessionByTxRef } from '../core/session-repository.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import {
  completeRefund,
  holdForRefund,
  merchantBalances,
  refundFromBalance,
  refundSources,
  releaseRefund,
  reserveRefund,
  type Balances,
} from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { findCharge, findChargeByChargeId, type Charge } from '../core/charge-repository.ts';
import { recordStillPending } from '../core/provider-asks.ts';
import type { Outcome, Pending, ProviderFor } from '../connectors/provider.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { moneyText, toMajor, toMinor } from '../shared/money.ts';
import { emitRefundOutcome } from './refund-events.ts';
import {
  claimHandOver,
  countRefunded,
  feeReturnedOn,
  finalizeRefund,
  findRefund,
  flagRefundForReview,
  insertRefund,
  listRefunds,
  recordHandedOver,
  uncountRefunded,
  waitingBefore,
  type Refund,
  type RefundWithCharge,
} from './refund-repository.ts';
import { logOnPayment } from './payment-log.ts';
import { withReason } from './pending-reasons.ts';
import { movementOf } from './refund-movement.ts';
import { balanceShort, BEHIND_EARLIER_REFUNDS, whyWait } from './refund-waits.ts';

export interface RefundDeps {
  db: Kysely<DB>;
  /** Where a refund's progress commits (see `PaymentDeps.transact`). */
  transact: Transact;
  providerFor: ProviderFor;
  clock: Clock;
  /** The gateway's time zone, for the times refund receipts show. */
  timeZone: string;
  /** REFUND_RETURNS_FEE: a merchant refund gives back the payment fee's share of what it refunds (`feeShareOf`). */
  refundReturnsFee: boolean;
}

/** How long a refund handed to its provider waits for the provider's answer before it is asked about. */
const HAND_OVER_RECOVERY_MS = 60_000;
/** What a list of refunds shows when it names no charge or payment: the newest this many. */
const LATEST_REFUNDS = 100;

function newRefund(
  charge: Charge,
  source: Refund['source'],
  amountMinor: number,
  reason: string | null,
  now: number,
): Refund {
  return {
    id: ids.refundRow(),
    refund_id: ids.refund(),
    merchant_id: charge.merchant_id,
    mode: charge.mode,
    charge_ref: charge.id,
    source,
    amount_minor: amountMinor,
    currency: charge.currency,
    status: 'pending',
    reason,
    failure_reason: null,
    provider_state: null,
    review_reason: null,
    fee_returned_minor: 0,
    pending_reason: null,
    pending_reasons: null,
    trans_id: null,
    check_at: now,
    callback_asked_at: null,
    created_at: now,
    completed_at: null,
    updated_at: now,
  };
}

/**
 * A checkout attempt that succeeded when its session could no longer count it (the session had
 * ended, or the customer had moved on to another attempt): in the transaction that recorded the
 * success, the money is held for the customer, counted as given back on the charge (so that the
 * merchant cannot refund it again), and a refund of all of it is queued. The settler hands it to
 * the provider.
 */
export async function refundUncountedPayment(
  trx: Kysely<DB>,
  charge: Charge,
  reason: string,
  now: number,
): Promise<Refund> {
  const refund = newRefund(charge, 'uncounted', charge.amount_minor, reason, now);
  if ((await countRefunded(trx, charge.id, refund.amount_minor, now)) === null)
    throw new Error(`uncounted charge ${charge.id} could not be counted as refunded`);
  await holdForRefund(trx, movementOf(refund, charge.id), now);
  await insertRefund(trx, refund);
  await addLog(
    trx,
    charge.id,
    `Not counted (${reason}): refund ${refund.refund_id} of ${moneyText(refund.currency, refund.amount_minor)} started`,
    now,
  );
  return refund;
}

/** The payment a merchant names: a charge by its `charge_id`, or the charge that paid a checkout session by its `tx_ref`. */
export type RefundTarget = { chargeId: string } | { txRef: string };

export interface RefundRequest {
  /** Whole major units; the whole of what is left to refund when absent. */
  amount?: number | undefined;
  /** The payment's currency, when given: the amount is read in it. */
  currency?: string | undefined;
  reason?: string | undefined;
}

/**
 * `cardOnly` is the card refund route's rule. `now` is the instant the caller's story happens at
 * (its own records say the same time). `alongside` is what the caller must record with the refund
 * itself (the dashboard's audit entry): it runs in the refund's transaction, so the two exist
 * together or not at all.
 */
export interface RefundOptions {
  cardOnly?: boolean;
  now?: number;
  alongside?: (trx: Kysely<DB>, refund: RefundWithCharge) => Promise<void>;
  /**
   * The payment's refunded total the merchant saw when confirming the refund (the dashboard's
   * confirmation step): the refund is made only while the total is still that, so a confirmation
   * posted twice refunds once, and one confirmed before another refund is not made on top of it.
   */
  refundedBefore?: number;
}

/** What a refund request would give back and from where, checked as `refundPayment` checks it, with nothing written. */
export interface RefundPreview {
  charge: Charge;
  amountMinor: number;
  /** The merchant's balances in the payment's mode and currency, before the refund. */
  balances: Balances;
  /** The payment fee's share the refund gives back (REFUND_RETURNS_FEE), which the balance does not pay. */
  feeReturnedMinor: number;
  /** What the refund takes from each of them (`refundSources`); null when it will wait. */
  sources: { fromCollection: number; fromMain: number } | null;
  /** Why the refund will wait for the balance, or null when it goes out now. */
  waits: string | null;
}

const REVIEWED_TOTAL_CHANGED =
  "The payment's refunds changed since this refund was reviewed, so nothing was refunded: review it again.";

/** The refund's transaction found less left to refund than the request saw: another refund got there first. */
class RefundedMeanwhile extends Error {}

/**
 * A refund the merchant asks for (docs/integrate/api-reference.md#refunds), of all that is left of a successful payment or
 * of part of it. In one transaction: the amount is counted on the charge (never beyond what was
 * paid, whatever runs at the same time), the fee's share it gives back is worked out
 * (`feeShareOf`), and the refund is recorded, either with what it takes from the merchant's
 * balance moved to `refunds_due`, or, when the balance cannot cover that or earlier refunds wait
 * for it, waiting with its reason and nothing reserved (`releaseCoveredRefunds` moves it on). It
 * is never refused for the balance. The settler then hands it to the provider.
 */
export async function refundPayment(
  { db, transact, clock, refundReturnsFee }: Pick<RefundDeps, 'db' | 'transact' | 'clock' | 'refundReturnsFee'>,
  owner: Principal,
  target: RefundTarget,
  request: RefundRequest,
  { cardOnly = false, now = clock.now(), alongside, refundedBefore }: RefundOptions = {},
): Promise<RefundWithCharge> {
  for (;;) {
    // Read again after losing a race: what is left decides between refusing and trying again.
    const { charge, amountMinor } = await refundAsked(db, owner, target, request, { cardOnly, refundedBefore });
    const asked = newRefund(charge, 'merchant', amountMinor, request.reason ?? null, now);
    try {
      const refund = await transact(async (trx) => {
        const refunded = await countRefunded(trx, charge.id, amountMinor, now, refundedBefore);
        if (refunded === null) throw new RefundedMeanwhile();
        const fee = refundReturnsFee ? await feeShareOf(trx, charge, amountMinor, refunded) : 0;
        const priced = { ...asked, fee_returned_minor: fee };
        const wait = await whyWait(trx, priced, now);
        if (wait === null) await reserveRefund(trx, movementOf(priced, priced.id), now);
        const made: Refund =
          wait === null
            ? priced
            : { ...priced, check_at: null, pending_reason: wait, pending_reasons: withReason(null, wait, now) };
        await insertRefund(trx, made);
        await logOnPayment(
          trx,
          charge,
          `Refund ${made.refund_id} of ${moneyText(made.currency, made.amount_minor)} requested${made.reason ? `: ${made.reason}` : ''}`,
          now,
        );
        if (wait !== null) await logOnPayment(trx, charge, `Refund ${made.refund_id} waits: ${wait}`, now);
        await alongside?.(trx, { ...made, charge_id: charge.charge_id });
        return made;
      });
      return { ...refund, charge_id: charge.charge_id };
    } catch (error) {
      if (!(error instanceof RefundedMeanwhile)) throw error;
    }
  }
}

/**
 * The refund a request asks for, refused as `refundPayment` would refuse it (another currency, more
 * than is left, a payment that cannot be refunded, a refunded total that moved since
 * `refundedBefore`): the charge and the amount.
 */
async function refundAsked(
  db: Kysely<DB>,
  owner: Principal,
  target: RefundTarget,
  request: RefundRequest,
  { cardOnly = false, refundedBefore }: Pick<RefundOptions, 'cardOnly' | 'refundedBefore'>,
): Promise<{ charge: Charge; amountMinor: number }> {
  const charge = await refundableCharge(db, owner, target, { cardOnly });
  if (refundedBefore !== undefined && charge.refunded_minor !== refundedBefore)
    throw ApiError.field('amount', REVIEWED_TOTAL_CHANGED);
  refuseOtherCurrency(charge, request.currency);
  const amountMinor = request.amount === undefined ? leftToRefund(charge) : toMinor(request.amount);
  refuseBeyond(charge, amountMinor);
  return { charge, amountMinor };
}

/**
 * What a refund would do, with nothing written: what a confirmation page shows before the refund
 * is made, refused as `refundPayment` refuses. What it takes from the balance is its amount less
 * the fee's share it gives back; when the balance cannot cover that, or earlier refunds wait, the
 * preview says it will wait and why (the refund's own transaction decides again, under lock).
 */
export async function previewRefund(
  { db, refundReturnsFee }: Pick<RefundDeps, 'db' | 'refundReturnsFee'>,
  owner: Principal,
  target: RefundTarget,
  request: RefundRequest,
): Promise<RefundPreview> {
  const { charge, amountMinor } = await refundAsked(db, owner, target, request, {});
  const feeReturnedMinor = refundReturnsFee
    ? await feeShareOf(db, charge, amountMinor, charge.refunded_minor + amountMinor)
    : 0;
  const balances = await merchantBalances(db, owner.merchantId, owner.mode, charge.currency);
  const takes = refundFromBalance({ amountMinor, feeMinor: feeReturnedMinor });
  const { covered, ...sources } = refundSources(takes, balances);
  const line = { merchant_id: owner.merchantId, mode: owner.mode, currency: charge.currency };
  const waits = (await waitingBefore(db, line))
    ? BEHIND_EARLIER_REFUNDS
    : covered
      ? null
      : balanceShort({ currency: charge.currency, amount_minor: amountMinor, fee_returned_minor: feeReturnedMinor });
  return { charge, amountMinor, feeReturnedMinor, balances, sources: covered ? sources : null, waits };
}

/**
 * The payment fee's share a refund gives back: the fee's share of all that is refunded of the
 * payment once this refund is counted (`refundedMinor`), rounded down to the minor unit, less what
 * its other refunds (those not failed) give back; never below nothing, never above the refund. So
 * each part of a payment refunded in several gives back at most its own share, and the part that
 * completes the whole brings the total to the fee exactly.
 */
async function feeShareOf(
  trx: Kysely<DB>,
  charge: Charge,
  amountMinor: number,
  refundedMinor: number,
): Promise<number> {
  if (charge.fee_minor === 0) return 0;
  // BigInt: a fee times an amount in minor units can pass 2^53.
  const share = Number((BigInt(charge.fee_minor) * BigInt(refundedMinor)) / BigInt(charge.amount_minor));
  return Math.min(amountMinor, Math.max(0, share - (await feeReturnedOn(trx, charge.id))));
}

/** What is left of a paid charge to refund, in minor units. */
export const leftToRefund = (charge: Pick<Charge, 'amount_minor' | 'refunded_minor'>): number =>
  charge.amount_minor - charge.refunded_minor;

/** A refund gives back the payment's own currency: an amount said in another is refused, not given back as if it were that currency. */
function refuseOtherCurrency(charge: Charge, currency: string | undefined): void {
  if (currency !== undefined && currency !== charge.currency)
    throw ApiError.field(
      'currency',
      `This payment was made in ${charge.currency}: it is refunded in ${charge.currency} only.`,
    );
}

/** Refuses a refund of more than is left of the payment. */
function refuseBeyond(charge: Charge, amountMinor: number): void {
  const left = leftToRefund(charge);
  if (left === 0) throw ApiError.field('amount', 'The payment has already been refunded in full.');
  if (amountMinor > left)
    throw ApiError.field('amount', `The amount must not be greater than ${toMajor(left)}, what is left to refund.`);
}

/** The successful payment the merchant names, in the key's mode; a payout, or a payment that did not succeed, is refused. */
async function refundableCharge(
  db: Kysely<DB>,
  owner: Principal,
  target: RefundTarget,
  { cardOnly }: { cardOnly: boolean },
): Promise<Charge> {
  if ('txRef' in target) {
    const session = REFERENCE_PATTERN.test(target.txRef)
      ? await findSessionByTxRef(db, owner, target.txRef)
      : undefined;
    if (!session) throw new ApiError('transactionNotFound');
    const paid = session.paid_charge_id === null ? undefined : await findCharge(db, session.paid_charge_id);
    if (session.status !== 'success' || !paid)
      throw ApiError.field('tx_ref', 'Only a successful payment can be refunded.');
    return paid;
  }
  const charge = REFERENCE_PATTERN.test(target.chargeId)
    ? await findChargeByChargeId(db, owner, target.chargeId)
    : undefined;
  if (!charge) throw new ApiError('transactionNotFound');
  if (charge.kind === 'payout') throw ApiError.field('charge_id', 'A payout cannot be refunded.');
  if (charge.status !== 'success') throw ApiError.field('charge_id', 'Only a successful payment can be refunded.');
  if (cardOnly && charge.channel !== 'card')
    throw ApiError.field('charge_id', 'This payment was not made by card: refund it with POST /refunds.');
  return charge;
}

/** One refund of the merchant's, in the key's mode. */
export async function showRefund(db: Kysely<DB>, owner: Principal, refundId: string): Promise<RefundWithCharge> {
  const refund = REFERENCE_PATTERN.test(refundId) ? await findRefund(db, owner, refundId) : undefined;
  if (!refund) throw new ApiError('transactionNotFound');
  return refund;
}

/**
 * The refunds of a payment (by `charge_id`, or every charge of a checkout session by `tx_ref`,
 * the refunds of successes it could not count included), or the merchant's latest; newest first.
 */
export async function refundsOf(
  db: Kysely<DB>,
  owner: Principal,
  target: Partial<{ chargeId: string; txRef: string }>,
): Promise<RefundWithCharge[]> {
  const known = (ref: string) => REFERENCE_PATTERN.test(ref);
  if (target.chargeId !== undefined) {
    const charge = known(target.chargeId) ? await findChargeByChargeId(db, owner, target.chargeId) : undefined;
    if (!charge) throw new ApiError('transactionNotFound');
    return listRefunds(db, owner, { chargeRef: charge.id });
  }
  if (target.txRef !== undefined) {
    const session = known(target.txRef) ? await findSessionByTxRef(db, owner, target.txRef) : undefined;
    if (!session) throw new ApiError('transactionNotFound');
    return listRefunds(db, owner, { sessionId: session.id });
  }
  return listRefunds(db, owner, { latest: LATEST_REFUNDS });
}

/**
 * Moves a due refund on: hands it to its provider if nobody has (once, whichever process gets
 * there first), otherwise asks the provider how it went and records a final answer.
 */
export async function advanceRefund(deps: RefundDeps, refund: Refund, now: number): Promise<void> {
  if (refund.pending_reason !== null) return;
  const provider = deps.providerFor(refund.mode);
  const charge = await findCharge(deps.db, refund.charge_ref);
  if (!charge) return;
  if (refund.provider_state === null) {
    if (!(await claimHandOver(deps.db, refund.id, now + HAND_OVER_RECOVERY_MS, now))) return;
    const started = await provider.refund({
      reference: refund.id,
      transId: charge.trans_id,
      amountMinor: refund.amount_minor,
      currency: refund.currency,
      charge,
    });
    if (started.status === 'started')
      return recordHandedOver(deps.db, refund.id, started.providerState, started.checkAt, deps.clock.now());
    return finishRefund(deps, refund, { status: 'failed', reason: started.reason }, deps.clock.now());
  }
  const answer = await provider.syncRefund(refund, charge, now);
  if (answer?.status === 'pending') return keepAskingAboutRefund(deps, refund, charge, answer, now);
  if (answer) await finishRefund(deps, refund, answer, now);
}

/** As for a charge: no final answer yet, so the refund is asked about again later, and flagged for review once the provider says so. */
async function keepAskingAboutRefund(
  deps: RefundDeps,
  refund: Refund,
  charge: Charge,
  pending: Pending,
  now: number,
): Promise<void> {
  await deps.transact(async (trx) => {
    await recordStillPending(trx, 'refunds', refund.id, pending, now);
    if (pending.review !== null && (await flagRefundForReview(trx, refund.id, pending.review, now))) {
      await logOnPayment(trx, charge, `Refund ${refund.refund_id} flagged for review: ${pending.review}`, now);
    }
  });
}

/**
 * Records a refund's final answer with its ledger movement, logs and event, once. A merchant
 * refund that succeeded pays the customer from `refunds_due`; one that failed gives the merchant
 * back exactly what was reserved and may be asked for again; either way the merchant hears of it
 * (`api.refund`, and the customer's receipt on success). A refund of held money that failed keeps
 * the money held and says so: it is the customer's, and an operator must act.
 */
async function finishRefund(deps: RefundDeps, refund: Refund, outcome: Outcome, now: number): Promise<void> {
  await deps.transact(async (trx) => {
    const final = await finalizeRefund(trx, refund.id, outcome, now);
    if (!final) return;
    if (final.source === 'uncounted') return finishUncounted(trx, final, outcome, now);
    if (outcome.status === 'success') {
      await completeRefund(trx, movementOf(final, final.id), now);
    } else {
      await uncountRefunded(trx, final.charge_ref, final.amount_minor, now);
      await releaseRefund(trx, { mode: final.mode, reference: final.id }, now);
    }
    const charge = (await findCharge(trx, final.charge_ref))!;
    const ended =
      outcome.status === 'success'
        ? 'completed'
        : `failed: ${outcome.reason}; ${moneyText(final.currency, final.amount_minor)} went back to the balance`;
    await logOnPayment(trx, charge, `Refund ${final.refund_id} ${ended}`, now);
    await emitRefundOutcome(trx, final, charge, now, deps.timeZone);
  });
}

async function finishUncounted(trx: Kysely<DB>, refund: Refund, outcome: Outcome, now: number): Promise<void> {
  if (outcome.status === 'success') {
    await completeRefund(trx, movementOf(refund, refund.id), now);
    await addLog(trx, refund.charge_ref, `Refund ${refund.refund_id} completed`, now);
  } else {
    await addLog(
      trx,
      refund.charge_ref,
      `Refund ${refund.refund_id} failed: ${outcome.reason}; the money stays held for the customer until an operator returns it`,
      now,
    );
  }
}
