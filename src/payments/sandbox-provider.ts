import { randomUUID } from 'node:crypto';
import type { FailureCode, Outcome, PaymentProvider, PayoutStart, ProviderCharge, RefundStart, StartResult } from './provider.ts';

/** The test numbers and cards of contract §7, and what each one does. */
export const TEST_MOBILE_NUMBERS = [
  { number: '0990000000', operator: 'Airtel Money', outcome: 'success' },
  { number: '0990000001', operator: 'Airtel Money', outcome: 'failed' },
  { number: '0899817565', operator: 'TNM Mpamba', outcome: 'success' },
  { number: '0899817566', operator: 'TNM Mpamba', outcome: 'failed' },
] as const;

export const TEST_CARDS = [
  { number: '4242 4242 4242 4242', brand: 'Visa', outcome: 'success' },
  { number: '5555 5555 5555 4444', brand: 'Mastercard', outcome: 'success' },
  { number: '4000 0000 0000 0002', brand: 'Visa', outcome: 'DECLINED' },
  { number: '4000 0000 0000 9995', brand: 'Visa', outcome: 'INSUFFICIENT_FUNDS' },
  { number: '4000 0000 0000 3220', brand: 'Visa', outcome: 'TIMED_OUT' },
  { number: '5200 0000 0000 0008', brand: 'Mastercard', outcome: 'ERROR' },
] as const;

export const TEST_OTP = '1234';

/** What each declining test card answers: the merchant-facing reason and the code the page words its advice from. */
const CARD_FAILURES: Record<string, { reason: string; code: FailureCode }> = {
  DECLINED: { reason: 'The card was declined (DECLINED).', code: 'declined' },
  INSUFFICIENT_FUNDS: { reason: 'The card has insufficient funds (INSUFFICIENT_FUNDS).', code: 'insufficient_funds' },
  TIMED_OUT: { reason: 'The card issuer did not answer in time (TIMED_OUT).', code: 'timed_out' },
  ERROR: { reason: 'The card issuer reported an error (ERROR).', code: 'issuer_error' },
};

const MOBILE_FAILURE = { reason: 'The mobile money payment was declined: insufficient balance.', code: 'insufficient_funds' } as const;

const BANK_PAYOUT_FAILURE = 'The bank payout failed (test mode, transaction_status=failed).';

interface SandboxState {
  outcome: 'success' | 'failed';
  reason?: string;
  code?: FailureCode;
}

const digits = (text: string) => text.replace(/\D/g, '');

/**
 * The test-mode provider: test numbers and cards decide the outcome, mobile money completes
 * `mobileDelayMs` after it started (as a customer approving on the phone would), and cards wait
 * for the one-time code. Anything else is refused at once, naming what to use instead.
 */
export function sandboxProvider({ mobileDelayMs }: { mobileDelayMs: number }): PaymentProvider {
  return {
    async startMobileMoney({ mobile }): Promise<StartResult> {
      const known = TEST_MOBILE_NUMBERS.find((entry) => `265${digits(entry.number).slice(1)}` === mobile.msisdn);
      if (!known) {
        return { accepted: false, message: `Test mode only accepts the test numbers: ${TEST_MOBILE_NUMBERS.map((n) => `${n.number} (${n.operator}, ${n.outcome})`).join(', ')}.` };
      }
      const state: SandboxState = known.outcome === 'success' ? { outcome: 'success' } : { outcome: 'failed', ...MOBILE_FAILURE };
      return { accepted: true, nextAction: 'approve', providerState: JSON.stringify(state), checkAt: Date.now() + mobileDelayMs };
    },

    async startCard({ card }): Promise<StartResult> {
      const known = TEST_CARDS.find((entry) => digits(entry.number) === card.number);
      if (!known) {
        return { accepted: false, message: `Test mode only accepts the test cards: ${TEST_CARDS.map((c) => `${c.number} (${c.outcome})`).join(', ')}.` };
      }
      const state: SandboxState = known.outcome === 'success' ? { outcome: 'success' } : { outcome: 'failed', ...CARD_FAILURES[known.outcome]! };
      return { accepted: true, nextAction: 'otp', providerState: JSON.stringify(state), checkAt: null };
    },

    async check(charge, now): Promise<Outcome | null> {
      if (charge.check_at === null || charge.check_at > now) return null;
      return outcomeOf(charge);
    },

    async payout({ requestedOutcome }) {
      return requestedOutcome === 'successful' ? { status: 'success' as const, transId: randomUUID() } : { status: 'failed' as const, reason: 'The payout failed (test mode, transaction_status=failed).' };
    },

    // A bank payout ends after the same delay as a mobile money payment, with the outcome the test asked for.
    async startBankPayout({ requestedOutcome }): Promise<PayoutStart> {
      const state: SandboxState = requestedOutcome === 'successful' ? { outcome: 'success' } : { outcome: 'failed', reason: BANK_PAYOUT_FAILURE };
      return { accepted: true, providerState: JSON.stringify(state), checkAt: Date.now() + mobileDelayMs };
    },

    async confirmOtp(charge, otp): Promise<Outcome> {
      if (otp.trim() !== TEST_OTP) return { status: 'failed', reason: `The one-time code was wrong (the test code is ${TEST_OTP}).`, code: 'wrong_otp' };
      return outcomeOf(charge);
    },

    // A refund completes after the same delay as a mobile money payment, as a wallet credit would.
    async refund(): Promise<RefundStart> {
      return { accepted: true, providerState: 'refund', checkAt: Date.now() + mobileDelayMs };
    },

    async syncRefund(refund, now): Promise<Outcome | null> {
      if (refund.check_at !== null && refund.check_at > now) return null;
      return { status: 'success', transId: randomUUID() };
    },
  };
}

/** The outcome the test instrument chose; a charge recorded but never started (a crash in between) failed. */
function outcomeOf(charge: ProviderCharge): Outcome {
  if (charge.provider_state === null) return { status: 'failed', reason: 'The payment could not be started.', code: 'not_started' };
  const state = JSON.parse(charge.provider_state) as SandboxState;
  return state.outcome === 'success' ? { status: 'success', transId: randomUUID() } : { status: 'failed', reason: state.reason ?? 'The payment failed.', code: state.code };
}
