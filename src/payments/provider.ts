import type { CardDetails } from '../shared/cards.ts';
import type { Mode } from '../shared/ids.ts';
import type { MalawiMobile } from '../shared/phone.ts';

/**
 * How money is actually collected, behind one interface: the sandbox for test keys, operator
 * connectors for live keys. A provider never touches the database; it answers, and the payment
 * services record what it said.
 */
export interface PaymentProvider {
  startMobileMoney(request: { mobile: MalawiMobile; amountMinor: number; currency: string }): Promise<StartResult>;
  startCard(request: { card: CardDetails; amountMinor: number; currency: string }): Promise<StartResult>;
  /** Asks again about a pending charge: its outcome, or null while the customer has not finished. */
  check(charge: ProviderCharge, now: number): Promise<Outcome | null>;
  /** The one-time code a card charge waits for. */
  confirmOtp(charge: ProviderCharge, otp: string): Promise<Outcome>;
  /** Sends money to a wallet. `requestedOutcome` is the sandbox's `transaction_status`; live connectors ignore it. */
  payout(request: { mobile: MalawiMobile; amountMinor: number; currency: string; requestedOutcome: 'successful' | 'failed' }): Promise<PayoutResult>;
}

/** What a provider is told of a charge it started: the state it asked us to keep, and when to ask again. */
export interface ProviderCharge {
  provider_state: string | null;
  check_at: number | null;
}

export type PayoutResult = Outcome | { status: 'refused'; message: string };

export type StartResult =
  | { accepted: true; nextAction: 'approve' | 'otp'; providerState: string; checkAt: number | null }
  | { accepted: false; message: string };

export type Outcome = { status: 'success'; transId: string | null } | { status: 'failed'; reason: string };

export type ProviderFor = (mode: Mode) => PaymentProvider;
