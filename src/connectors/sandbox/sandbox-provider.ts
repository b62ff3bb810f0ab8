import type { Clock } from '../../shared/clock.ts';
import { randomUUID } from 'node:crypto';
import { ids } from '../../shared/ids.ts';
import { moneyText } from '../../shared/money.ts';
import type {
  BankTransferPayer,
  BankTransferStart,
  FailureCode,
  Outcome,
  PaymentProvider,
  PayoutStart,
  ProviderCharge,
  RefundStart,
  StartResult,
} from '../provider.ts';

/** The test numbers and cards of docs/integrate/api-reference.md#sandbox-test-instruments, and what each one does. */
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

/** The bank every test bank transfer account is opened at, and who pays into it. */
export const SANDBOX_TRANSFER_BANK = 'Lipira Sandbox Bank';
export const SANDBOX_PAYER: BankTransferPayer = {
  bank: 'National Bank of Malawi',
  accountNumber: '******4321',
  accountName: 'Test Payer',
};

/**
 * What a test bank transfer does, from the last two digits of its whole kwacha: `13` (MWK 1,013)
 * sends a transfer MWK 1 short, which fails the charge; `14` (MWK 1,014) sends nothing, so the
 * account expires; any other amount is paid exactly after the mobile money delay.
 */
export const TEST_BANK_TRANSFERS = [
  { ending: '13', example: 'MWK 1,013', outcome: 'wrong amount' },
  { ending: '14', example: 'MWK 1,014', outcome: 'no transfer (expires)' },
] as const;

/**
 * Why a charge fails when a transfer of another amount than its account's arrives: the transfer
 * goes back to the payer. A test helper's transfer of the wrong amount (src/test-helpers/) ends the same way.
 */
export function wrongTransferAmount(dueMinor: number, arrivedMinor: number): { reason: string; code: 'wrong_amount' } {
  return {
    code: 'wrong_amount',
    reason: `A transfer of ${moneyText('MWK', arrivedMinor)} arrived for ${moneyText('MWK', dueMinor)}: only the exact amount pays this account, so the transfer was returned to the payer.`,
  };
}

function testTransferOf(amountMinor: number): 'exact' | 'wrong_amount' | 'none' {
  const ending = String(Math.floor(amountMinor / 100) % 100).padStart(2, '0');
  if (ending === TEST_BANK_TRANSFERS[0].ending) return 'wrong_amount';
  if (ending === TEST_BANK_TRANSFERS[1].ending) return 'none';
  return 'exact';
}

const MOBILE_FAILURE = {
  reason: 'The mobile money payment was declined: insufficient balance.',
  code: 'insufficient_funds',
} as const;

const BANK_PAYOUT_FAILURE = 'The bank payout failed (test mode, transaction_status=failed).';

interface SandboxState {
  /** `none`: a bank transfer account nobody pays into. */
  outcome: 'success' | 'failed' | 'none';
  reason?: string;
  code?: FailureCode;
  payer?: BankTransferPayer;
}

const digits = (text: string) => text.replace(/\D/g, '');

/**
 * The test-mode provider: test numbers and cards decide the outcome, mobile money completes
 * `mobileDelayMs` after it started (as a customer approving on the phone would), and cards wait
 * for the one-time code. Anything else is refused at once, naming what to use instead.
 */
export function sandboxProvider({ mobileDelayMs, clock }: { mobileDelayMs: number; clock: Clock }): PaymentProvider {
  return {
    async startMobileMoney({ mobile }): Promise<StartResult> {
      const known = TEST_MOBILE_NUMBERS.find((entry) => `265${digits(entry.number).slice(1)}` === mobile.msisdn);
      if (!known) {
        return {
          status: 'refused',
          reason: `Test mode only accepts the test numbers: ${TEST_MOBILE_NUMBERS.map((n) => `${n.number} (${n.operator}, ${n.outcome})`).join(', ')}.`,
        };
      }
      const state: SandboxState =
        known.outcome === 'success' ? { outcome: 'success' } : { outcome: 'failed', ...MOBILE_FAILURE };
      return {
        status: 'started',
        nextAction: 'approve',
        providerState: JSON.stringify(state),
        checkAt: clock.now() + mobileDelayMs,
      };
    },

    async startCard({ card }): Promise<StartResult> {
      const known = TEST_CARDS.find((entry) => digits(entry.number) === card.number);
      if (!known) {
        return {
          status: 'refused',
          reason: `Test mode only accepts the test cards: ${TEST_CARDS.map((c) => `${c.number} (${c.outcome})`).join(', ')}.`,
        };
      }
      const state: SandboxState =
        known.outcome === 'success' ? { outcome: 'success' } : { outcome: 'failed', ...CARD_FAILURES[known.outcome]! };
      return { status: 'started', nextAction: 'otp', providerState: JSON.stringify(state), checkAt: null };
    },

    // Test cards are confirmed with their one-time code on our own 3-D Secure page.
    customerRedirect: () => null,

    // A test bank transfer arrives after the same delay as a mobile money approval, in the amount the charge's amount asks for (TEST_BANK_TRANSFERS).
    async startBankTransfer({ amountMinor, expiresAt }): Promise<BankTransferStart> {
      const account = { bankName: SANDBOX_TRANSFER_BANK, accountNumber: ids.bankTransferAccount() };
      const transfer = testTransferOf(amountMinor);
      const state: SandboxState =
        transfer === 'exact'
          ? { outcome: 'success', payer: SANDBOX_PAYER }
          : transfer === 'none'
            ? { outcome: 'none' }
            : { outcome: 'failed', ...wrongTransferAmount(amountMinor, amountMinor - 100) };
      return {
        status: 'started',
        account,
        providerState: JSON.stringify(state),
        checkAt: transfer === 'none' ? expiresAt : Math.min(clock.now() + mobileDelayMs, expiresAt),
      };
    },

    async check(charge, now): Promise<Outcome | null> {
      if (charge.check_at === null || charge.check_at > now) return null;
      return outcomeOf(charge);
    },

    // Test charges are with no connector: no operator's callback is about them.
    connectorOf: () => null,

    async payout({ requestedOutcome }) {
      return requestedOutcome === 'successful'
        ? { status: 'success' as const, transId: randomUUID() }
        : { status: 'failed' as const, reason: 'The payout failed (test mode, transaction_status=failed).' };
    },

    // A bank payout ends after the same delay as a mobile money payment, with the outcome the test asked for.
    async startBankPayout({ requestedOutcome }): Promise<PayoutStart> {
      const state: SandboxState =
        requestedOutcome === 'successful' ? { outcome: 'success' } : { outcome: 'failed', reason: BANK_PAYOUT_FAILURE };
      return { status: 'started', providerState: JSON.stringify(state), checkAt: clock.now() + mobileDelayMs };
    },

    async confirmOtp(charge, otp): Promise<Outcome> {
      if (otp.trim() !== TEST_OTP)
        return {
          status: 'failed',
          reason: `The one-time code was wrong (the test code is ${TEST_OTP}).`,
          code: 'wrong_otp',
        };
      return outcomeOf(charge) ?? { status: 'failed', reason: 'The payment failed.' };
    },

    // A refund completes after the same delay as a mobile money payment, as a wallet credit would.
    async refund(): Promise<RefundStart> {
      return { status: 'started', providerState: 'refund', checkAt: clock.now() + mobileDelayMs };
    },

    async syncRefund(refund, _charge, now): Promise<Outcome | null> {
      if (refund.check_at !== null && refund.check_at > now) return null;
      return { status: 'success', transId: randomUUID() };
    },
  };
}

/** The outcome the test instrument chose (none yet for an account nobody pays); a charge recorded but never started (a crash in between) failed. */
function outcomeOf(charge: ProviderCharge): Outcome | null {
  if (charge.provider_state === null)
    return { status: 'failed', reason: 'The payment could not be started.', code: 'not_started' };
  const state = JSON.parse(charge.provider_state) as SandboxState;
  if (state.outcome === 'none') return null;
  if (state.outcome === 'success')
    return state.payer
      ? { status: 'success', transId: randomUUID(), payer: state.payer }
      : { status: 'success', transId: randomUUID() };
  return { status: 'failed', reason: state.reason ?? 'The payment failed.', code: state.code };
}
