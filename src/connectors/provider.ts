import type { CardDetails } from '../shared/cards.ts';
import type { Mode } from '../shared/ids.ts';
import type { MalawiMobile } from '../shared/phone.ts';

/**
 * How money is actually collected, behind one interface: the sandbox for test keys, operator
 * connectors for live keys. A provider never touches the database; it answers, and the payment
 * services record what it said. Every request carries our own `reference` for the charge or
 * refund, recorded before the provider is asked, so that a request repeated after a crash can be
 * recognised by the provider as the same one.
 */
export interface PaymentProvider {
  startMobileMoney(request: {
    reference: string;
    mobile: MalawiMobile;
    amountMinor: number;
    currency: string;
  }): Promise<StartResult>;
  /**
   * Hands a card to the acquirer, with its CVV (passed on, never kept) and the cardholder's name;
   * `returnUrl` is where an acquirer's own 3-D Secure page sends the customer back to.
   */
  startCard(request: {
    reference: string;
    card: CardDetails;
    cvv: string;
    cardholderName: string;
    amountMinor: number;
    currency: string;
    returnUrl: string;
  }): Promise<StartResult>;
  /** The acquirer's page a card charge waiting for the customer there (`redirect`) sends them to; null when there is none. */
  customerRedirect(charge: ProviderCharge): string | null;
  /**
   * Asks again about a pending charge: its outcome, or null while the customer has not finished;
   * `pending` when asking again later means new state and a new time (a live operator that has
   * not answered yet).
   */
  check(charge: ChargeForProvider, now: number): Promise<Outcome | Pending | null>;
  /**
   * The live connector a charge is with, the one whose callbacks may be about it (its refunds'
   * too: a refund goes through the connector that collected); null for the sandbox's.
   */
  connectorOf(charge: ChargeForProvider): string | null;
  /** The one-time code a card charge waits for. */
  confirmOtp(charge: ProviderCharge, otp: string): Promise<Outcome>;
  /** Sends money to a wallet. `requestedOutcome` is the sandbox's `transaction_status`; live connectors ignore it. */
  payout(request: {
    reference: string;
    mobile: MalawiMobile;
    amountMinor: number;
    currency: string;
    requestedOutcome: 'successful' | 'failed';
  }): Promise<PayoutResult>;
  /**
   * Hands a payout to a bank account, or to a wallet of the banks list, to the provider under our
   * `reference`; how it went comes later, through `check`. `requestedOutcome` as for `payout`.
   */
  startBankPayout(request: {
    reference: string;
    recipient: PayoutRecipient;
    amountMinor: number;
    currency: string;
    requestedOutcome: 'successful' | 'failed';
  }): Promise<PayoutStart>;
  /**
   * Opens a one-time account for a bank transfer charge (our `reference`), in `accountName`'s
   * name, taking transfers until `expiresAt`: its bank and number for the customer, and when to
   * ask `check` whether a transfer arrived (and whether it was the exact amount).
   */
  startBankTransfer(request: {
    reference: string;
    amountMinor: number;
    currency: string;
    accountName: string;
    expiresAt: number;
  }): Promise<BankTransferStart>;
  /** Gives a customer back `amountMinor` of a successful `charge` (`transId`: the provider's id for it). */
  refund(request: {
    reference: string;
    transId: string | null;
    amountMinor: number;
    currency: string;
    charge: ChargeForProvider;
  }): Promise<RefundStart>;
  /** Asks about a refund of `charge` handed over earlier: its outcome, or null (or `pending`, as for `check`) while it is under way. */
  syncRefund(
    refund: ProviderCharge & { id: string; amount_minor: number },
    charge: ChargeForProvider,
    now: number,
  ): Promise<Outcome | Pending | null>;
}

/**
 * What a provider is told of a charge or refund it started: the state it asked us to keep (null
 * when we recorded the request but never learnt the provider's answer), and when to ask again.
 */
export interface ProviderCharge {
  provider_state: string | null;
  check_at: number | null;
}

/** A charge as a provider is asked about it: which one, and how it was taken. */
export interface ChargeForProvider extends ProviderCharge {
  id: string;
  kind: 'payment' | 'payout';
  channel: 'mobile_money' | 'card' | 'bank' | 'bank_transfer';
  operator: 'airtel' | 'tnm' | null;
  amount_minor: number;
  created_at: number;
}

/**
 * Not final yet, and to be asked about again at `checkAt`, with `providerState` kept in place of
 * the old. `review`: why a person should look at it now (no final answer for too long), or null.
 */
export interface Pending {
  status: 'pending';
  providerState: string;
  checkAt: number;
  review: string | null;
}

/**
 * Refused before anything reached the provider's books, so no money can have moved: `reason` is
 * told to whoever asked. Every answer of a provider or connector that can be a refusal ends in this
 * one shape, on the `status` its outcomes are told apart by.
 */
export interface Refused {
  status: 'refused';
  reason: string;
}

export type PayoutResult = Outcome | Pending | Refused;

/**
 * What a started charge waits for: the customer approving on the phone (`approve`), the customer's
 * one-time code on our 3-D Secure page (`otp`), or the customer at the acquirer's own page
 * (`redirect`, its address kept in the provider's state: `customerRedirect`).
 */
export type StartResult =
  | { status: 'started'; nextAction: 'approve' | 'otp' | 'redirect'; providerState: string; checkAt: number | null }
  | Refused;

export type RefundStart = { status: 'started'; providerState: string; checkAt: number } | Refused;

/** Like a refund, a bank payout is handed over, and how it went asked for later. */
export type PayoutStart = RefundStart;

export type BankTransferStart =
  | { status: 'started'; account: { bankName: string; accountNumber: string }; providerState: string; checkAt: number }
  | Refused;

/** Who paid a bank transfer charge, as the provider reports it (the account number already masked). */
export interface BankTransferPayer {
  bank: string;
  accountNumber: string;
  accountName: string;
}

/** Where a bank payout goes: an entry of the banks list, and the account there (a wallet's as `265…`). */
export interface PayoutRecipient {
  bankUuid: string;
  bankName: string;
  accountName: string;
  accountNumber: string;
}

/**
 * Why a payment failed, as a machine code a connector maps its operator's or acquirer's errors to
 * (Airtel's "wrong PIN", an acquirer's "do not honour", …). The hosted page words its advice to
 * the customer from it; `reason` stays the text merchants read in verification and webhooks.
 */
export type FailureCode =
  | 'declined'
  | 'insufficient_funds'
  | 'timed_out'
  | 'issuer_error'
  | 'wrong_otp'
  | 'wrong_pin'
  | 'rejected_by_customer'
  | 'limit_exceeded'
  | 'not_started'
  /** A bank transfer of another amount than the charge's arrived (it goes back to the payer). */
  | 'wrong_amount'
  /** A bank transfer charge's account expired before a transfer arrived. */
  | 'expired'
  /** Ours, not a provider's: a card attempt gave way to another attempt before its code was sent. */
  | 'superseded';

/** `payer`: who paid, for a bank transfer. */
export type Outcome =
  | { status: 'success'; transId: string | null; payer?: BankTransferPayer }
  | { status: 'failed'; reason: string; code?: FailureCode };

export type ProviderFor = (mode: Mode) => PaymentProvider;
