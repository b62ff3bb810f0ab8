import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ANSWER_RECOVERY_MS, type PaymentDeps } from '../core/payment-deps.ts';
import { addLog, type LogEntry } from '../logs/log-repository.ts';
import { findMerchant } from '../merchants/merchant-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { isCardProblem, maskCardNumber, passesLuhn, readCard, type CardDetails } from '../shared/cards.ts';
import { ApiError } from '../shared/errors.ts';
import { ids, type ChargeRef } from '../shared/ids.ts';
import { requestHash } from '../shared/request-hash.ts';
import {
  discardUnstartedCard,
  findAuthenticationByReference,
  findAuthenticationOfCharge,
  insertCardAuthentication,
  recordWrongCode,
  type CardAuthentication,
} from './card-authentication-repository.ts';
import { refreshCharge } from '../core/charge-completion.ts';
import { chargeDetails } from './charge-lookup.ts';
import { claimCodeConfirmation, findCharge, recordStarted, type Charge } from '../core/charge-repository.ts';
import { newDirectCharge, type DirectRequest } from '../core/pending-charge.ts';
import { describeMethod } from '../core/charge-views.ts';
import { completeDirectCharge } from './direct-charges.ts';
import { existingFor, insertUniqueRecord } from '../core/direct-records.ts';

/** What `POST /charge-card/payments` carries (docs/integrate/api-reference.md#card-charges), after validation. */
export interface CardChargeRequest {
  card_number: string;
  expiry: string;
  cvv: string;
  cardholder_name: string;
  amount: number;
  currency: string;
  charge_id: string;
  redirect_url: string;
  email?: string | undefined;
}

/** The currencies a card may be charged in: those a checkout session may be made in. */
export const CARD_CURRENCIES = ['MWK', 'USD'];

/** Wrong one-time codes a customer may type before the charge fails (as a checkout's failed attempts). */
export const CODE_TRIES = 3;

/** How long the 3-D Secure link works: a customer who has not finished by then has left. */
export const AUTHENTICATION_WINDOW_MS = 30 * 60_000;

const TIMED_OUT = 'The customer did not complete 3-D Secure in time.';

/** A started card charge: the charge waiting for its code, and its 3-D Secure link's record. */
export interface CardStart {
  charge: Charge;
  authentication: CardAuthentication;
}

/**
 * Starts a direct card charge: the card is checked, the charge recorded with its 3-D Secure link
 * (waiting for nothing until its provider answers), then the card handed to the provider under our
 * charge id, with the CVV, which is passed on and never kept. A crash after
 * asking leaves a charge the settler asks about (`check_at`), never a card taken without a record;
 * a provider that refuses at once took nothing, so the record goes and the refusal is the answer.
 * The charge then waits for its one-time code on our page (`otp`), or for the customer at the
 * acquirer's own page (`redirect`), which sends them back to `returnUrlOf(link reference)`. A
 * retry of the same request, while the charge waits, answers the same link.
 */
export async function startCardCharge(
  deps: PaymentDeps,
  owner: Principal,
  request: CardChargeRequest,
  returnUrlOf: (reference: string) => string,
): Promise<CardStart> {
  const now = deps.clock.now();
  if (!CARD_CURRENCIES.includes(request.currency))
    throw ApiError.field('currency', `The currency must be one of: ${CARD_CURRENCIES.join(', ')}.`);
  const card = readCard(request.card_number, request.expiry, request.cvv, new Date(now));
  if (isCardProblem(card)) throw ApiError.field(card.field, card.message);
  if (!passesLuhn(card.number)) throw ApiError.field('card_number', 'The card number is not valid: check its digits.');
  const hash = hashCardRequest(request, card);
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return replayOf(deps, existing);
  const id = ids.chargeRef();
  const authentication: CardAuthentication = {
    charge_ref: id,
    reference: randomUUID(),
    redirect_url: request.redirect_url,
    wrong_codes: 0,
    expires_at: now + AUTHENTICATION_WINDOW_MS,
    created_at: now,
  };
  const make = () => cardCharge(id, { owner, request, hash }, card, now);
  const recorded = await insertUniqueRecord(deps, { owner, request, hash }, make, async (trx, record) => {
    await insertCardAuthentication(trx, authentication);
    await addLog(trx, record.id, `Card payment requested with ${describeMethod(record)}: waiting for 3-D Secure`, now);
  });
  if (!recorded.created) return replayOf(deps, recorded.charge);
  const started = await deps.providerFor(owner.mode).startCard({
    reference: id,
    card,
    cvv: request.cvv.trim(),
    cardholderName: request.cardholder_name.trim(),
    amountMinor: request.amount * 100,
    currency: request.currency,
    returnUrl: returnUrlOf(authentication.reference),
  });
  if (started.status === 'refused') {
    await deps.transact((trx) => discardUnstartedCard(trx, id));
    throw ApiError.field('card_number', started.reason);
  }
  const charge =
    (await recordStarted(deps.db, id, started, deps.clock.now())) ?? (await findCharge(deps.db, id)) ?? recorded.charge;
  return { charge, authentication };
}

/** The fields that define the payment; the card by its masked number and expiry only: the full number is never kept, even hashed. */
function hashCardRequest(request: CardChargeRequest, card: CardDetails): string {
  const { cardholder_name, amount, currency, charge_id, redirect_url, email } = request;
  return requestHash({
    kind: 'card',
    card: maskCardNumber(card.number),
    expiry: card.expiry,
    cardholder_name,
    amount,
    currency,
    charge_id,
    redirect_url,
    email,
  });
}

async function replayOf(deps: PaymentDeps, charge: Charge): Promise<CardStart> {
  const authentication = await findAuthenticationOfCharge(deps.db, charge.id);
  // A charge_id of another kind of charge never has the same request hash, so it never gets here.
  if (!authentication) throw ApiError.field('charge_id', 'The charge id has already been taken.');
  return { charge, authentication };
}

function cardCharge(
  id: ChargeRef,
  direct: DirectRequest & { request: CardChargeRequest },
  card: CardDetails,
  now: number,
): Charge {
  // The cardholder's name is split at its first space: records and receipts show a first and last name.
  const { request } = direct;
  const [first, ...rest] = request.cardholder_name.trim().split(/\s+/);
  return newDirectCharge(
    direct,
    {
      id,
      kind: 'payment',
      channel: 'card',
      card_brand: card.brand,
      card_number: maskCardNumber(card.number),
      card_expiry: card.expiry,
      check_at: now + ANSWER_RECOVERY_MS,
      currency: request.currency,
      first_name: first || null,
      last_name: rest.length > 0 ? rest.join(' ') : null,
      type: 'Direct API Payment',
    },
    now,
  );
}

/** A 3-D Secure link as its page shows it: the link, its charge as it is now, and whom it pays. */
export interface CardAuthenticationState {
  authentication: CardAuthentication;
  charge: Charge;
  merchant: { name: string; email: string };
  /** The link is past its time: its page is gone, and a charge still waiting for its code has failed. */
  expired: boolean;
}

/** The link a reference names, with its charge (failed first if it waited for its code past the link's time); null when unknown. */
export async function findCardAuthentication(
  deps: PaymentDeps,
  reference: string,
  now: number,
): Promise<CardAuthenticationState | null> {
  const authentication = await findAuthenticationByReference(deps.db, reference);
  const found = authentication && (await findCharge(deps.db, authentication.charge_ref));
  const merchant = found && (await findMerchant(deps.db, found.merchant_id));
  if (!authentication || !found || !merchant) return null;
  const expired = authentication.expires_at <= now;
  const charge = expired ? await expireIfWaiting(deps, found, now) : found;
  return { authentication, charge, merchant: { name: merchant.name, email: merchant.email }, expired };
}

/** A charge still waiting for its code when its link runs out fails: nothing was sent to the issuer, so no money can follow. */
async function expireIfWaiting(deps: PaymentDeps, charge: Charge, now: number): Promise<Charge> {
  if (charge.status !== 'pending' || charge.next_action !== 'otp') return charge;
  return (
    (await completeDirectCharge(deps, charge, { status: 'failed', reason: TIMED_OUT, code: 'timed_out' }, now)) ??
    charge
  );
}

/** After a code: the link as it is now, and whether the code was wrong with tries left (the page asks again). */
export interface CodeAnswer {
  state: CardAuthenticationState;
  wrongCode: boolean;
}

/**
 * Sends a one-time code to the issuer, once: the charge is moved from waiting for its code to
 * `confirming` by compare-and-set, so a double submit or a second tab waits for the first and
 * is answered with its outcome, never a second charge. A wrong code with tries left puts the
 * charge back to waiting; the last wrong code, or any other outcome, ends it (ledger, event,
 * receipt, as every direct charge ends). Null when the reference is unknown.
 */
export async function submitCardCode(deps: PaymentDeps, reference: string, otp: string): Promise<CodeAnswer | null> {
  const now = deps.clock.now();
  for (let at = now; ; at = deps.clock.now()) {
    const state = await findCardAuthentication(deps, reference, at);
    // A charge waiting at its acquirer's page takes no code here: its page sends the customer there.
    if (!state || state.expired || state.charge.status !== 'pending' || state.charge.next_action === 'redirect')
      return state && { state, wrongCode: false };
    const { charge, authentication } = state;
    if (charge.next_action !== 'otp') {
      if (!(await untilAnswered(deps, charge.id))) return { state, wrongCode: false };
      continue;
    }
    if (!(await claimCodeConfirmation(deps.db, charge.id, at + ANSWER_RECOVERY_MS, at))) continue;
    const outcome = await deps.providerFor(charge.mode).confirmOtp(charge, otp);
    if (outcome.status === 'failed' && outcome.code === 'wrong_otp' && authentication.wrong_codes + 1 < CODE_TRIES) {
      await deps.transact(async (trx) => {
        const wrong = await recordWrongCode(trx, charge.id, at);
        if (wrong !== null)
          await addLog(trx, charge.id, `3-D Secure: wrong one-time code (${wrong} of ${CODE_TRIES})`, at);
      });
      const after = await findCardAuthentication(deps, reference, at);
      return after && { state: after, wrongCode: true };
    }
    await completeDirectCharge(deps, charge, outcome, at);
    const after = await findCardAuthentication(deps, reference, at);
    return after && { state: after, wrongCode: false };
  }
}

/**
 * Verification of a card charge (docs/integrate/api-reference.md#card-verification): what `/mobile-money/payments/…/verify` shows,
 * for card payments only, a direct one whose 3-D Secure link ran out failed first.
 */
export async function verifyCardCharge(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
): Promise<{ charge: Charge; logs: LogEntry[] }> {
  const now = deps.clock.now();
  const verified = await chargeDetails(deps, owner, chargeId, now);
  if (verified.charge.channel !== 'card')
    throw ApiError.field(
      'charge_id',
      'This payment was not made by card: verify it with GET /mobile-money/payments/{charge_id}/verify.',
    );
  if (verified.charge.next_action !== 'otp' || verified.charge.session_id !== null) return verified;
  const authentication = await findAuthenticationOfCharge(deps.db, verified.charge.id);
  if (!authentication || authentication.expires_at > now) return verified;
  await expireIfWaiting(deps, verified.charge, now);
  return chargeDetails(deps, owner, chargeId, now);
}

/** How long a second submission waits for the first one's code (or the charge's start) to be answered. */
const CONFIRM_WAIT_MS = 30_000;

/** Waits until a code being confirmed, or the card's start, has its answer recorded (true), or the wait is over (false). */
async function untilAnswered(deps: PaymentDeps, chargeRef: ChargeRef): Promise<boolean> {
  for (const deadline = Date.now() + CONFIRM_WAIT_MS; Date.now() < deadline; await sleep(25)) {
    const charge = await findCharge(deps.db, chargeRef);
    if (!charge || charge.status !== 'pending' || (charge.next_action !== 'confirming' && charge.next_action !== null))
      return true;
  }
  return false;
}

/**
 * The customer is back from the acquirer's 3-D Secure page: the provider is asked at once how the
 * charge stands (what the browser's address says is never taken for an answer), and the link is
 * answered as it is then. Null when the reference is unknown.
 */
export async function returnFromAcquirer(
  deps: PaymentDeps,
  reference: string,
): Promise<CardAuthenticationState | null> {
  const now = deps.clock.now();
  const state = await findCardAuthentication(deps, reference, now);
  if (!state || state.charge.status !== 'pending' || state.charge.next_action !== 'redirect') return state;
  return { ...state, charge: await refreshCharge(deps, state.charge, now, { now: true }) };
}

/** How many wrong codes the customer may still type. */
export function codeTriesLeft(authentication: CardAuthentication): number {
  return Math.max(0, CODE_TRIES - authentication.wrong_codes);
}
