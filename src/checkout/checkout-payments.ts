import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { isPostgres } from '../db/dialect.ts';
import { creditCollection } from '../ledger/ledger-service.ts';
import { addLog, addLogs } from '../logs/log-repository.ts';
import {
  abandonBeforeCode,
  claimCodeConfirmation,
  finalizeCharge,
  findCharge,
  findSessionCharge,
  discardUnstarted,
  waiveFee,
  type Charge,
} from '../core/charge-repository.ts';
import { describeMethod } from '../core/charge-views.ts';
import { newPendingCharge } from '../core/pending-charge.ts';
import { transferExpiresAt } from '../core/bank-transfer-expiry.ts';
import { insertTransferAccount, recordPayer, accountNameFor } from '../core/bank-transfer-repository.ts';
import { feeAtMerchantRate } from '../core/fees.ts';
import { countLinkPayment } from '../core/payment-link-uses.ts';
import type { Outcome, StartResult } from '../connectors/provider.ts';
import { refundUncountedPayment } from '../refunds/refund-service.ts';
import { isCardProblem, maskCardNumber, passesLuhn, readCard } from '../shared/cards.ts';
import { ids, type ChargeRef } from '../shared/ids.ts';
import {
  OPERATOR_NAMES,
  OPERATOR_NAMES_WITH_ARTICLE,
  localMaskedMobile,
  maskMsisdn,
  parseMalawiMobile,
} from '../shared/phone.ts';
import { requestHash } from '../shared/request-hash.ts';
import { emitCheckoutPayment } from './checkout-events.ts';
import { cardName } from '../core/customer-names.ts';
import * as sessions from '../core/session-repository.ts';
import type { CheckoutSession } from '../core/session-repository.ts';
import { lockSessionForCompletion, type SessionForCompletion } from '../core/completion-lock.ts';
import { ANSWER_RECOVERY_MS, settlesAtOnce, type PaymentDeps } from '../core/payment-deps.ts';

/** An attempt either becomes a charge, or is refused with a message for the customer. */
export type AttemptResult = { charge: Charge } | { refused: string; field?: string };

type Details = Pick<Charge, 'channel' | 'operator' | 'mobile' | 'card_brand' | 'card_number' | 'card_expiry'>;

const ABANDONED_FOR_ANOTHER = 'This card payment was replaced by another payment before its one-time code was entered.';

export async function startMobileMoneyAttempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  input: { mobile: string; operator?: string },
): Promise<AttemptResult> {
  const now = deps.clock.now();
  if (session.currency !== 'MWK')
    return {
      refused: `Airtel Money and TNM Mpamba take payments in MWK only: pay this ${session.currency} amount by card.`,
      field: 'mobile',
    };
  const mobile = parseMalawiMobile(input.mobile);
  if (!mobile) return { refused: 'Enter an Airtel Money (099, 098) or TNM Mpamba (088, 089) number.', field: 'mobile' };
  if (input.operator && input.operator !== mobile.operator) {
    return {
      refused: `${input.mobile.trim()} is ${OPERATOR_NAMES_WITH_ARTICLE[mobile.operator]} number; choose ${OPERATOR_NAMES[mobile.operator]} or check the number.`,
      field: 'operator',
    };
  }
  const details: Details = {
    channel: 'mobile_money',
    operator: mobile.operator,
    mobile: maskMsisdn(mobile.msisdn),
    card_brand: null,
    card_number: null,
    card_expiry: null,
  };
  const sameWallet = requestHash({ channel: 'mobile_money', msisdn: mobile.msisdn });
  return attempt(deps, session, details, sameWallet, now, (charge) =>
    deps.providerFor(session.mode).startMobileMoney({
      reference: charge.id,
      mobile,
      amountMinor: session.amount_minor,
      currency: session.currency,
    }),
  );
}

/**
 * A card attempt. The CVV goes to the provider and is never kept, the customer's name with it as
 * the cardholder's; a live card waits for the customer at its acquirer's own 3-D Secure page,
 * which sends them back to `returnUrlOf(the attempt's charge)`.
 */
export async function startCardAttempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  input: { number: string; expiry: string; cvv: string; returnUrlOf: (charge: Charge) => string },
): Promise<AttemptResult> {
  const now = deps.clock.now();
  const card = readCard(input.number, input.expiry, input.cvv, new Date(now));
  if (isCardProblem(card)) return { refused: card.message, field: card.field };
  // A mistyped live card is caught here rather than by the acquirer; sandbox test cards need not pass.
  if (session.mode === 'live' && !passesLuhn(card.number))
    return { refused: 'Enter a valid card number.', field: 'card_number' };
  const details: Details = {
    channel: 'card',
    operator: null,
    mobile: null,
    card_brand: card.brand,
    card_number: maskCardNumber(card.number),
    card_expiry: card.expiry,
  };
  // The masked number and expiry tell a card typed again from another; the full number is never kept, even hashed.
  const sameCard = requestHash({ channel: 'card', card: details.card_number, expiry: card.expiry });
  return attempt(deps, session, details, sameCard, now, (charge) =>
    deps.providerFor(session.mode).startCard({
      reference: charge.id,
      card,
      cvv: input.cvv.trim(),
      cardholderName: [session.first_name, session.last_name].filter(Boolean).join(' '),
      amountMinor: session.amount_minor,
      currency: session.currency,
      returnUrl: input.returnUrlOf(charge),
    }),
  );
}

const BANK_TRANSFER_DETAILS: Details = {
  channel: 'bank_transfer',
  operator: null,
  mobile: null,
  card_brand: null,
  card_number: null,
  card_expiry: null,
};

/**
 * A bank transfer attempt: a one-time account for the session's exact amount, open for an hour,
 * recorded beside the attempt's charge before the attempt counts. It waits like a mobile money
 * request (`approve`), so that the one-attempt rule and "use another method" treat it alike.
 */
export async function startBankTransferAttempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  merchantName: string,
): Promise<AttemptResult> {
  const now = deps.clock.now();
  if (session.currency !== 'MWK')
    return { refused: `Bank transfers are taken in MWK only: pay this ${session.currency} amount by card.` };
  return attempt(
    deps,
    session,
    BANK_TRANSFER_DETAILS,
    requestHash({ channel: 'bank_transfer' }),
    now,
    async (charge): Promise<StartResult> => {
      const expiresAt = transferExpiresAt(charge);
      const started = await deps.providerFor(session.mode).startBankTransfer({
        reference: charge.id,
        amountMinor: session.amount_minor,
        currency: session.currency,
        accountName: accountNameFor(merchantName),
        expiresAt,
      });
      if (started.status === 'refused') return started;
      const account = {
        charge_ref: charge.id,
        bank_name: started.account.bankName,
        account_number: started.account.accountNumber,
        account_name: accountNameFor(merchantName),
        expires_at: expiresAt,
      };
      if (!(await insertTransferAccount(deps.db, account)))
        return { status: 'refused', reason: 'No account could be opened just now: please try again.' };
      return {
        status: 'started',
        nextAction: 'approve',
        providerState: started.providerState,
        checkAt: Math.min(started.checkAt, expiresAt),
      };
    },
  );
}

/**
 * An attempt, in the order that keeps money safe: the session's one slot for an attempt in flight
 * is taken and the charge recorded first, then the provider is asked, then its answer recorded. A
 * crash after asking therefore leaves a charge for the settler to ask about, never money taken
 * without a record; and however many attempts arrive at once, only the one holding the slot
 * reaches the customer's wallet.
 */
async function attempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  details: Details,
  sameInstrument: string,
  now: number,
  start: (charge: Charge) => Promise<StartResult>,
): Promise<AttemptResult> {
  for (let at = now; ; at = deps.clock.now()) {
    const claim = await claimAttempt(deps, session, details, sameInstrument, at);
    if ('created' in claim) return recordStart(deps, session, claim, await start(claim.charge), deps.clock.now());
    if (!('charge' in claim) || claim.charge.provider_state !== null) return claim;
    // The same attempt is being started by another request (a double click): its answer is this one's too.
    if (!(await untilStarted(deps.db, claim.charge.id))) return claim;
  }
}

/** How long a repeated attempt waits for the first one's provider to answer before showing the attempt as it is. */
const START_WAIT_MS = 30_000;

/** Waits until a recorded attempt has its provider's answer (true), is gone (refused: true, so the caller tries again), or the wait is over (false). */
async function untilStarted(db: Kysely<DB>, id: ChargeRef): Promise<boolean> {
  for (const deadline = Date.now() + START_WAIT_MS; Date.now() < deadline; await sleep(25)) {
    const charge = await findCharge(db, id);
    if (!charge || charge.provider_state !== null || charge.status !== 'pending') return true;
  }
  return false;
}

/** A new attempt holding the slot, with the card attempt it took the slot from, if any. */
interface NewAttempt {
  charge: Charge;
  created: true;
  displaced: ChargeRef | null;
}

/**
 * Takes the session's attempt slot with a new pending charge. Held by an attempt with the same
 * instrument (a double click, a reload, a second tab), that attempt is the answer; held by a card
 * still waiting for its code (nothing sent to the issuer), the card steps aside, to be abandoned
 * once the new attempt is taken or given its slot back if the new one is refused; held by
 * anything else, the customer is told what it waits for.
 */
async function claimAttempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  details: Details,
  sameInstrument: string,
  now: number,
): Promise<NewAttempt | AttemptResult> {
  const first = await claimFreeSlotAtOnce(deps, session, newAttemptCharge(session, details, sameInstrument, now), now);
  if (first) return first;
  for (;;) {
    const charge = newAttemptCharge(session, details, sameInstrument, now);
    const claimed = await deps
      .transact(async (trx): Promise<NewAttempt | AttemptResult | 'again'> => {
        const current = await sessions.lockSession(trx, session.id);
        if (!current || current.status !== 'pending' || current.expires_at <= now)
          return { refused: 'This payment has already ended.' };
        const holder =
          current.pending_charge_id === null ? undefined : await findCharge(trx, current.pending_charge_id);
        const inFlight = holder?.status === 'pending' ? holder : null;
        if (inFlight && inFlight.request_hash === sameInstrument && inFlight.channel === details.channel)
          return { charge: inFlight };
        if (inFlight && inFlight.next_action !== 'otp') return { refused: busyMessage(inFlight) };
        const taken = await sessions.claimSlotWithCharge(trx, session.id, charge, now, current.pending_charge_id);
        if (!taken.claimed) return 'again';
        if (!taken.inserted) throw new RetryWithNewIds();
        return { charge, created: true, displaced: inFlight?.id ?? null };
      })
      .catch((error: unknown) => {
        if (error instanceof RetryWithNewIds) return 'again' as const;
        throw error;
      });
    if (claimed !== 'again') return claimed;
  }
}

/**
 * The usual first attempt, on PostgreSQL: the session as the page read it holds no attempt, so
 * the slot's compare-and-set and the charge's insert, one statement and so atomic by itself, take
 * it without a transaction around them. Null when anything differs from what the page read (the
 * slot taken meanwhile, the session ended): the locked transaction below then decides, and says
 * why. SQLite takes its transactions in the same process, at no round trip's cost.
 */
async function claimFreeSlotAtOnce(
  deps: PaymentDeps,
  session: CheckoutSession,
  charge: Charge,
  now: number,
): Promise<NewAttempt | null> {
  if (!isPostgres(deps.db) || session.pending_charge_id !== null) return null;
  const taken = await sessions.claimSlotWithCharge(deps.db, session.id, charge, now, null);
  if (!taken.claimed) return null;
  if (taken.inserted) return { charge, created: true, displaced: null };
  // Random ids that collided with stored ones: the slot names no charge, so it is freed again.
  await sessions.releaseAttemptSlot(deps.db, session.id, charge.id);
  return null;
}

/** What the customer is told while another attempt is in flight: where it waits, so a mistyped number shows. */
function busyMessage(holder: Charge): string {
  if (holder.channel === 'mobile_money' && holder.mobile)
    return `A payment is already waiting for approval on ${localMaskedMobile(holder.mobile)}.`;
  if (holder.channel === 'bank_transfer')
    return 'A bank transfer is already awaited for this payment: use another method on its page first.';
  return `A payment with ${cardName(holder)} is being confirmed; wait a moment.`;
}

function newAttemptCharge(session: CheckoutSession, details: Details, sameInstrument: string, now: number): Charge {
  return newPendingCharge(
    {
      id: ids.chargeRef(),
      merchant_id: session.merchant_id,
      mode: session.mode,
      charge_id: ids.attemptChargeId(),
      session_id: session.id,
      kind: 'payment',
      ...details,
      next_action: details.channel === 'card' ? 'otp' : 'approve',
      check_at: now + ANSWER_RECOVERY_MS,
      amount_minor: session.amount_minor,
      currency: session.currency,
      first_name: session.first_name,
      last_name: session.last_name,
      email: session.email,
      request_hash: sameInstrument,
      type: 'API Payment (Checkout)',
    },
    now,
  );
}

/** Rolls back an attempt whose random ids collided with stored ones, to try again with new ones. */
class RetryWithNewIds extends Error {}

/**
 * Records the provider's answer to a new attempt: taken, it counts on the session (and the card it
 * displaced is abandoned); refused (no money moved), the attempt is undone and the slot goes back
 * to whoever held it, as if the attempt had never been tried.
 */
async function recordStart(
  deps: PaymentDeps,
  session: CheckoutSession,
  { charge, displaced }: NewAttempt,
  started: StartResult,
  now: number,
): Promise<AttemptResult> {
  if (started.status === 'refused') {
    await deps.transact(async (trx) => {
      await sessions.lockSession(trx, session.id);
      if (await discardUnstarted(trx, charge.id))
        await sessions.releaseAttemptSlot(trx, session.id, charge.id, displaced);
    });
    return { refused: started.reason };
  }
  const recordTaken = (db: Kysely<DB>) =>
    sessions.recordAttemptTaken(
      db,
      session.id,
      charge.id,
      started,
      [
        [session.id, `Attempted to pay with ${describeMethod(charge)}`],
        [charge.id, `Payment started with ${describeMethod(charge)}`],
      ],
      now,
    );
  // On PostgreSQL the record is one statement that takes the session's lock itself.
  if (!displaced && isPostgres(deps.db)) await recordTaken(deps.db);
  else
    await deps.transact(async (trx) => {
      await sessions.lockSession(trx, session.id);
      await recordTaken(trx);
      if (displaced && (await abandonBeforeCode(trx, displaced, ABANDONED_FOR_ANOTHER, now)))
        await addLog(trx, displaced, `Payment abandoned: ${ABANDONED_FOR_ANOTHER}`, now);
    });
  return {
    charge: {
      ...charge,
      next_action: started.nextAction,
      provider_state: started.providerState,
      check_at: started.checkAt,
    },
  };
}

/**
 * Sends a card attempt's one-time code to the issuer, once, and only while the card is the
 * session's attempt in flight. A card that stepped aside for another attempt being started waits
 * for that attempt's answer: taken, the card was abandoned and its code is never sent; refused,
 * the card has its place back and the code goes on. A charge already past the code step is
 * answered as it is.
 */
export async function confirmCardOtp(
  deps: PaymentDeps,
  session: CheckoutSession,
  chargeId: string,
  otp: string,
): Promise<Charge | null> {
  const now = deps.clock.now();
  for (;;) {
    const charge = await findSessionCharge(deps.db, session.id, chargeId);
    if (!charge || charge.status !== 'pending' || charge.next_action !== 'otp') return charge ?? null;
    const holder = await deps.transact(async (trx) => {
      const current = await sessions.lockSession(trx, session.id);
      if (current?.pending_charge_id !== charge.id) return current?.pending_charge_id ?? null;
      return (await claimCodeConfirmation(trx, charge.id, now + ANSWER_RECOVERY_MS, now)) ? 'claimed' : null;
    });
    if (holder === 'claimed')
      return completeCheckoutCharge(deps, charge, await deps.providerFor(charge.mode).confirmOtp(charge, otp), now);
    if (holder === null || !(await untilStarted(deps.db, holder)))
      return (await findSessionCharge(deps.db, session.id, chargeId)) ?? null;
  }
}

/**
 * Records how an attempt ended, with everything that follows, in one transaction:
 * - success pays the session and credits the merchant's collection balance, if this attempt is
 *   the session's attempt in flight; any other success (the session had ended, or the customer
 *   had moved on) is held and refunded to the customer in full;
 * - failure of the attempt in flight counts against the session, which ends after too many;
 * - each counted outcome emits `checkout.payment` for delivery.
 */
export async function completeCheckoutCharge(
  deps: PaymentDeps,
  charge: Charge,
  outcome: Outcome,
  now: number,
): Promise<Charge | null> {
  return deps.transact(async (trx) => {
    // The merchant is read for a success only: its fee, and the event's webhook and receipts.
    const locked = await lockSessionForCompletion(trx, charge.session_id!, charge.id, {
      withMerchant: outcome.status === 'success',
    });
    // Ended already by another completion (most often the settler and a status poll both found it
    // due, and this lock waited for the other's commit): what that one recorded stands, as it is.
    if (!locked || locked.charge.status !== 'pending') return locked?.charge ?? null;
    const { merchant } = locked;
    const fee = feeAtMerchantRate(charge, merchant);
    // The lock holds the charge pending, so this takes it; the compare-and-set stays all the same.
    const final = await finalizeCharge(trx, charge.id, outcome, fee, now);
    if (!final) return (await findSessionCharge(trx, charge.session_id!, charge.charge_id)) ?? null;
    const sessionId = final.session_id!;
    if (final.channel === 'bank_transfer') await recordPayer(trx, final.id, outcome);
    if (outcome.status === 'success') {
      const completedLog = 'Payment completed';
      const counted = await countsTowardItsLink(trx, locked.session, final, now);
      const paid = counted ? await sessions.markPaid(trx, sessionId, final.id, fee, now) : undefined;
      if (!paid) {
        await addLog(trx, final.id, completedLog, now);
        return refundUncounted(
          trx,
          final,
          sessionId,
          now,
          counted ? undefined : 'its payment link had already been used up',
        );
      }
      await addLogs(
        trx,
        [
          [final.id, completedLog],
          [sessionId, `Payment completed with ${describeMethod(final)}`],
        ],
        now,
      );
      await emitCheckoutPayment(trx, paid, final, now, deps.timeZone, merchant);
      // Last: the balances it moves are rows every payment updates, locked until the commit.
      await creditCollection(
        trx,
        {
          merchantId: final.merchant_id,
          mode: final.mode,
          currency: final.currency,
          amountMinor: final.amount_minor,
          feeMinor: fee,
          reference: final.id,
        },
        now,
        { settledAtOnce: settlesAtOnce(deps, final.mode) },
      );
      return final;
    }
    await addLog(trx, final.id, `Payment failed: ${outcome.reason}`, now);
    const failures = await sessions.countFailure(trx, sessionId, final.id, now);
    if (failures === null) return final;
    await addLog(trx, sessionId, `Payment attempt failed: ${outcome.reason}`, now);
    const session = await sessions.findSessionById(trx, sessionId);
    if (session) await emitCheckoutPayment(trx, session, final, now, deps.timeZone);
    if (failures >= deps.maxFailedAttempts && (await sessions.markFailed(trx, sessionId, now))) {
      await addLog(trx, sessionId, `Payment failed after ${failures} failed attempts`, now);
    }
    return final;
  });
}

/**
 * A success of the attempt in flight on a session a payment link opened counts toward the link,
 * taken by compare-and-set in this transaction (true when counted, or nothing to count). Asked
 * only of the success `markPaid` will take: the session is locked and its slot holds this charge.
 */
async function countsTowardItsLink(
  trx: Kysely<DB>,
  session: SessionForCompletion,
  charge: Charge,
  now: number,
): Promise<boolean> {
  if (!session.payment_link_id || session.status !== 'pending' || session.pending_charge_id !== charge.id) return true;
  return countLinkPayment(trx, session.payment_link_id, session.amount_minor, now);
}

/** A success the session could not count: no fee, the money held and refunded, both logs saying why. */
async function refundUncounted(
  trx: Kysely<DB>,
  charge: Charge,
  sessionId: string,
  now: number,
  reason?: string,
): Promise<Charge> {
  const session = await sessions.findSessionById(trx, sessionId);
  const why =
    reason ??
    (session?.status === 'pending' ? 'the customer had moved on to another attempt' : 'the payment had already ended');
  const uncounted = await waiveFee(trx, charge.id);
  const refund = await refundUncountedPayment(trx, uncounted, why, now);
  await addLog(
    trx,
    sessionId,
    `Charge ${charge.charge_id} succeeded after ${why}; it was not counted and refund ${refund.refund_id} gives it back`,
    now,
  );
  return uncounted;
}

/**
 * Sets aside the attempt in flight at the customer's request ("Didn't get a prompt? Use a
 * different number") without cancelling the session: its slot is freed for the next attempt. The
 * charge itself stays pending, since the request may yet reach the phone: an approval that still
 * comes is not counted and is refunded in full (`completeCheckoutCharge`), and a failure is not
 * counted. Only a mobile money attempt waiting for approval (or a bank transfer waiting for its
 * transfer) is set aside; a card's code, once sent, is answered within seconds. The charge as it is, or null when the session has no such charge.
 */
export async function abandonAttempt(
  deps: PaymentDeps,
  session: CheckoutSession,
  chargeId: string,
): Promise<Charge | null> {
  const now = deps.clock.now();
  return deps.transact(async (trx) => {
    const current = await sessions.lockSession(trx, session.id);
    const charge = await findSessionCharge(trx, session.id, chargeId);
    if (!current || !charge) return null;
    const inFlight =
      current.status === 'pending' && current.pending_charge_id === charge.id && charge.status === 'pending';
    if (
      !inFlight ||
      charge.next_action !== 'approve' ||
      !(await sessions.releaseAttemptSlot(trx, session.id, charge.id))
    )
      return charge;
    await addLog(
      trx,
      session.id,
      `The customer set aside the payment request to ${describeMethod(charge)} to pay another way`,
      now,
    );
    await addLog(
      trx,
      charge.id,
      'Set aside by the customer, who moved on to another attempt: an approval that still comes is refunded',
      now,
    );
    return charge;
  });
}

export async function cancelSession(deps: PaymentDeps, session: CheckoutSession): Promise<void> {
  const now = deps.clock.now();
  await deps.transact(async (trx) => {
    if (await sessions.markFailed(trx, session.id, now))
      await addLog(trx, session.id, 'The customer cancelled the payment', now);
  });
}
