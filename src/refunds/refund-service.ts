import type { Kysely } from 'kysely';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { findSessionByTxRef } from '../core/session-repository.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import {
  completeRefund,
  holdForRefund,
  InsufficientFunds,
  releaseRefund,
  reserveRefund,
  type Movement,
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
  finalizeRefund,
  flagRefundForReview,
  findRefund,
  insertRefund,
  listRefunds,
  recordHandedOver,
  uncountRefunded,
  type Refund,
  type RefundWithCharge,
} from './refund-repository.ts';

export interface RefundDeps {
  db: Kysely<DB>;
  /** Where a refund's progress commits (see `PaymentDeps.transact`). */
  transact: Transact;
  providerFor: ProviderFor;
  clock: Clock;
  /** The gateway's time zone, for the times refund receipts show. */
  timeZone: string;
}

/** How long a refund handed to its provider waits for the provider's answer before it is asked about. */
const HAND_OVER_RECOVERY_MS = 60_000;
/** What a list of refunds shows when it names no charge or payment: the newest this many. */
const LATEST_REFUNDS = 100;

const movementOf = (
  refund: Pick<Refund, 'merchant_id' | 'mode' | 'currency' | 'amount_minor'>,
  reference: string,
): Movement => ({
  merchantId: refund.merchant_id,
  mode: refund.mode,
  currency: refund.currency,
  amountMinor: refund.amount_minor,
  feeMinor: 0,
  reference,
});

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
  if (!(await countRefunded(trx, charge.id, refund.amount_minor, now)))
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
}

/** The refund's transaction found less left to refund than the request saw: another refund got there first. */
class RefundedMeanwhile extends Error {}

/**
 * A refund the merchant asks for (docs/integrate/api-reference.md#refunds), of all that is left of a successful payment or
 * of part of it. In one transaction: the amount is counted on the charge (never beyond what was
 * paid, whatever runs at the same time), taken from the merchant's balance into `refunds_due`,
 * and the refund recorded; a refusal (too much, not enough balance) leaves nothing. The settler
 * then hands it to the provider.
 */
export async function refundPayment(
  { db, transact, clock }: Pick<RefundDeps, 'db' | 'transact' | 'clock'>,
  owner: Principal,
  target: RefundTarget,
  request: RefundRequest,
  { cardOnly = false, now = clock.now(), alongside }: RefundOptions = {},
): Promise<RefundWithCharge> {
  for (;;) {
    // Read again after losing a race: what is left decides between refusing and trying again.
    const charge = await refundableCharge(db, owner, target, { cardOnly });
    refuseOtherCurrency(charge, request.currency);
    const amountMinor = request.amount === undefined ? leftToRefund(charge) : toMinor(request.amount);
    refuseBeyond(charge, amountMinor);
    const refund = newRefund(charge, 'merchant', amountMinor, request.reason ?? null, now);
    try {
      await transact(async (trx) => {
        if (!(await countRefunded(trx, charge.id, amountMinor, now))) throw new RefundedMeanwhile();
        await reserveRefund(trx, movementOf(refund, refund.id), now);
        await insertRefund(trx, refund);
        await logOnPayment(
          trx,
          charge,
          `Refund ${refund.refund_id} of ${moneyText(refund.currency, refund.amount_minor)} requested${refund.reason ? `: ${refund.reason}` : ''}`,
          now,
        );
        await alongside?.(trx, { ...refund, charge_id: charge.charge_id });
      });
      return { ...refund, charge_id: charge.charge_id };
    } catch (error) {
      if (error instanceof InsufficientFunds)
        throw ApiError.field('amount', 'The refund exceeds the available balance.');
      if (!(error instanceof RefundedMeanwhile)) throw error;
    }
  }
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

/** A refund's log on its payment: the charge's, and the checkout session's it paid, which verification shows. */
async function logOnPayment(trx: Kysely<DB>, charge: Charge, message: string, now: number): Promise<void> {
  await addLog(trx, charge.id, message, now);
  if (charge.session_id) await addLog(trx, charge.session_id, message, now);
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
