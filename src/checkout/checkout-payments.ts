import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { creditCollection } from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import { finalizeCharge, findSessionCharge, insertChargeIfNew, type Charge } from '../payments/charge-repository.ts';
import { describeMethod } from '../payments/charge-views.ts';
import { collectionFee } from '../payments/fees.ts';
import type { Outcome, ProviderFor, StartResult } from '../payments/provider.ts';
import { isCardProblem, maskCardNumber, passesLuhn, readCard } from '../shared/cards.ts';
import { ids } from '../shared/ids.ts';
import { OPERATOR_NAMES, maskMsisdn, parseMalawiMobile } from '../shared/phone.ts';
import { emitCheckoutPayment } from './checkout-events.ts';
import * as sessions from './checkout-repository.ts';
import type { CheckoutSession } from './checkout-repository.ts';

export interface PaymentDeps {
  db: Kysely<DB>;
  providerFor: ProviderFor;
  /** The failed attempt that ends a session (contract §7: the 3rd by default). */
  maxFailedAttempts: number;
  payoutFeeBasisPoints: number;
}

/** An attempt either becomes a charge, or is refused with a message for the customer. */
export type AttemptResult = { charge: Charge } | { refused: string; field?: string };

type Details = Pick<Charge, 'channel' | 'operator' | 'mobile' | 'card_brand' | 'card_number' | 'card_expiry'>;

export async function startMobileMoneyAttempt(deps: PaymentDeps, session: CheckoutSession, input: { mobile: string; operator?: string }, now = Date.now()): Promise<AttemptResult> {
  const mobile = parseMalawiMobile(input.mobile);
  if (!mobile) return { refused: 'Enter an Airtel Money (099, 098) or TNM Mpamba (088, 089) number.', field: 'mobile' };
  if (input.operator && input.operator !== mobile.operator) {
    return { refused: `${input.mobile.trim()} is a ${OPERATOR_NAMES[mobile.operator]} number; choose ${OPERATOR_NAMES[mobile.operator]} or check the number.`, field: 'operator' };
  }
  const started = await deps.providerFor(session.mode).startMobileMoney({ mobile, amountMinor: session.amount_minor, currency: session.currency });
  return recordAttempt(deps, session, started, { channel: 'mobile_money', operator: mobile.operator, mobile: maskMsisdn(mobile.msisdn), card_brand: null, card_number: null, card_expiry: null }, now);
}

export async function startCardAttempt(deps: PaymentDeps, session: CheckoutSession, input: { number: string; expiry: string; cvv: string }, now = Date.now()): Promise<AttemptResult> {
  const card = readCard(input.number, input.expiry, input.cvv, new Date(now));
  if (isCardProblem(card)) return { refused: card.message, field: card.field };
  // A mistyped live card is caught here rather than by the acquirer; sandbox test cards need not pass.
  if (session.mode === 'live' && !passesLuhn(card.number)) return { refused: 'Enter a valid card number.', field: 'card_number' };
  const started = await deps.providerFor(session.mode).startCard({ card, amountMinor: session.amount_minor, currency: session.currency });
  return recordAttempt(deps, session, started, { channel: 'card', operator: null, mobile: null, card_brand: card.brand, card_number: maskCardNumber(card.number), card_expiry: card.expiry }, now);
}

/**
 * Records an accepted attempt as a pending charge of the session, counted on the session, in
 * one transaction; a session that ended meanwhile gets no charge.
 */
async function recordAttempt(deps: PaymentDeps, session: CheckoutSession, started: StartResult, details: Details, now: number): Promise<AttemptResult> {
  if (!started.accepted) return { refused: started.message };
  for (;;) {
    const charge: Charge = {
      id: ids.charge(),
      merchant_id: session.merchant_id,
      mode: session.mode,
      charge_id: ids.attemptChargeId(),
      ref_id: ids.reference(),
      session_id: session.id,
      kind: 'payment',
      ...details,
      status: 'pending',
      next_action: started.nextAction,
      failure_reason: null,
      provider_state: started.providerState,
      check_at: started.checkAt,
      amount_minor: session.amount_minor,
      currency: session.currency,
      fee_minor: 0,
      first_name: session.first_name,
      last_name: session.last_name,
      email: session.email,
      trans_id: null,
      attempts: 1,
      created_at: now,
      completed_at: null,
      updated_at: now,
      request_hash: null,
      type: 'API Payment (Checkout)',
    };
    const recorded = await deps.db.transaction().execute(async (trx) => {
      if (!(await sessions.countAttempt(trx, session.id, now))) return 'ended' as const;
      if (!(await insertChargeIfNew(trx, charge))) throw new RetryWithNewIds();
      await addLog(trx, session.id, `Attempted to pay with ${describeMethod(charge)}`, now);
      await addLog(trx, charge.id, `Payment started with ${describeMethod(charge)}`, now);
      return 'recorded' as const;
    }).catch((error: unknown) => {
      if (error instanceof RetryWithNewIds) return 'retry' as const;
      throw error;
    });
    if (recorded === 'ended') return { refused: 'This payment has already ended.' };
    if (recorded === 'recorded') return { charge };
  }
}

/** Rolls back an attempt whose random ids collided with stored ones, to try again with new ones. */
class RetryWithNewIds extends Error {}

export async function confirmCardOtp(deps: PaymentDeps, session: CheckoutSession, chargeId: string, otp: string, now = Date.now()): Promise<Charge | null> {
  const charge = await findSessionCharge(deps.db, session.id, chargeId);
  if (!charge || charge.status !== 'pending' || charge.next_action !== 'otp') return charge ?? null;
  const outcome = await deps.providerFor(charge.mode).confirmOtp(charge, otp);
  return completeCheckoutCharge(deps, charge, outcome, now);
}

/**
 * Records how an attempt ended, with everything that follows, in one transaction:
 * - success pays the session and credits the merchant's collection balance (once: a second
 *   success is kept on its charge but neither counted nor credited);
 * - failure counts against the session, which ends after too many;
 * - each counted outcome emits `checkout.payment` for delivery.
 */
export async function completeCheckoutCharge(deps: PaymentDeps, charge: Charge, outcome: Outcome, now = Date.now()): Promise<Charge | null> {
  return deps.db.transaction().execute(async (trx) => {
    const fee = await collectionFee(trx, charge, outcome);
    const final = await finalizeCharge(trx, charge.id, outcome, fee, now);
    if (!final) return (await findSessionCharge(trx, charge.session_id!, charge.charge_id)) ?? null;
    const sessionId = final.session_id!;
    if (outcome.status === 'success') {
      await addLog(trx, final.id, 'Payment completed', now);
      const paid = await sessions.markPaid(trx, sessionId, final.id, fee, now);
      if (paid) {
        await creditCollection(trx, { merchantId: final.merchant_id, mode: final.mode, currency: final.currency, amountMinor: final.amount_minor, feeMinor: fee, reference: final.id }, now);
        await addLog(trx, sessionId, `Payment completed with ${describeMethod(final)}`, now);
        await emitCheckoutPayment(trx, paid, final, now);
      } else {
        await addLog(trx, sessionId, `Charge ${final.charge_id} completed after the session had ended; it was not counted`, now);
      }
      return final;
    }
    await addLog(trx, final.id, `Payment failed: ${outcome.reason}`, now);
    const failures = await sessions.countFailure(trx, sessionId, now);
    if (failures === null) return final;
    await addLog(trx, sessionId, `Payment attempt failed: ${outcome.reason}`, now);
    const session = await sessions.findSessionById(trx, sessionId);
    if (session) await emitCheckoutPayment(trx, session, final, now);
    if (failures >= deps.maxFailedAttempts && (await sessions.markFailed(trx, sessionId, now))) {
      await addLog(trx, sessionId, `Payment failed after ${failures} failed attempts`, now);
    }
    return final;
  });
}

export async function cancelSession(deps: PaymentDeps, session: CheckoutSession, now = Date.now()): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (await sessions.markFailed(trx, session.id, now)) await addLog(trx, session.id, 'The customer cancelled the payment', now);
  });
}
