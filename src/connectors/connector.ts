import type { CardDetails } from '../shared/cards.ts';
import type { MalawiMobile } from '../shared/phone.ts';
import type { BankTransferPayer, FailureCode, PayoutRecipient, Refused } from './provider.ts';

/**
 * A live acquirer (a mobile money operator, an upstream gateway) behind one operation per flow,
 * the shape payment switches use. A connector speaks its party's wire format inside its own folder
 * and answers in `Step`s; it never reads or writes the database, and never retries a request that
 * moves money: the payment services record what it said and the settler asks again with `sync`.
 *
 * Every request carries our own `reference` (a charge's, refund's or payout's id), recorded before
 * the connector is asked and sent to the operator as its transaction id, so that the operator
 * recognises a resend as the same transaction and `sync` can ask about it even when the first
 * answer was lost.
 */
export interface Connector {
  /** The name in `LIVE_ROUTES` and in `/callbacks/<name>`. */
  readonly name: string;
  /** Starts a charge: a push to the customer's phone, a card payment, a one-time bank account. */
  collect(request: CollectRequest): Promise<Step>;
  /** Asks about a charge started earlier (also when its `collect` answer never came). */
  sync(request: SyncRequest): Promise<Step>;
  /** Gives a customer back part or all of a successful charge. */
  refund(request: RefundRequest): Promise<Step>;
  /** Asks about a refund handed over earlier, told what it was asked for, so that it asks the way the refund went. */
  syncRefund(request: RefundSyncRequest): Promise<Step>;
  /** Sends money to a wallet or bank account. */
  payout(request: PayoutRequest): Promise<Step>;
  syncPayout(request: SyncRequest): Promise<Step>;
  /**
   * Authenticates a callback the operator sent to `/callbacks/<name>` and says which of our
   * records it is about. A callback is only a hint: the record is settled by what `sync` says.
   */
  verifyCallback(callback: IncomingCallback): CallbackVerdict;
}

/**
 * What a connector says about a flow. Only `success` and `failed` are final, and only when the
 * operator said so explicitly: a timeout, a 5xx, an answer that cannot be read or an operator's
 * "ambiguous" is `pending`, never a failure and never a reason to send again.
 */
export type Step =
  | { status: 'success'; operatorId: string | null; payer?: BankTransferPayer }
  | { status: 'failed'; reason: string; code?: FailureCode }
  | PendingStep
  /** Refused before it reached the operator's books (no money can have moved): the attempt may be made again. */
  | Refused;

export interface PendingStep {
  status: 'pending';
  /** The operator's own id for the transaction, once it gave one. */
  operatorId?: string | null;
  /** Why it is not final, for logs and the review list ("operator timed out", "TIP"). */
  note: string;
  /** A card charge whose 3-D Secure page the customer must be sent to. */
  redirectUrl?: string;
  /** A bank transfer charge's one-time account. */
  account?: { bankName: string; accountNumber: string };
}

export type CollectRequest = { reference: string; amountMinor: number; currency: string } & (
  | { method: 'mobile_money'; mobile: MalawiMobile }
  /** `returnUrl`: where the acquirer's 3-D Secure page sends the customer back to. */
  | { method: 'card'; card: CardDetails & { cvv: string }; cardholderName: string; returnUrl: string }
  | { method: 'bank_transfer'; accountName: string; expiresAt: number }
);

export type CollectMethod = CollectRequest['method'];

export interface SyncRequest {
  /** Our id for the charge, refund or payout. */
  reference: string;
  /** The operator's id for it, when its answer to the start was recorded. */
  operatorId: string | null;
  /** For `sync`: how the charge was collected. */
  method?: CollectMethod;
}

export interface RefundRequest {
  reference: string;
  amountMinor: number;
  currency: string;
  charge: RefundedCharge;
}

/** The charge being refunded: our id, the operator's, how it was collected and its whole amount. */
export interface RefundedCharge {
  reference: string;
  operatorId: string | null;
  method: CollectMethod;
  amountMinor: number;
  /**
   * The wallet that paid a mobile money charge, in full, when it was kept (the charge's row keeps
   * it masked): where a connector that can only refund whole payments sends part of one instead.
   */
  payer?: MalawiMobile | null;
}

export type RefundSyncRequest = SyncRequest & Pick<RefundRequest, 'amountMinor' | 'charge'>;

export type PayoutRequest = { reference: string; amountMinor: number; currency: string } & (
  { method: 'mobile_money'; mobile: MalawiMobile } | { method: 'bank'; recipient: PayoutRecipient }
);

export interface IncomingCallback {
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes as they arrived (signatures are over these), and parsed. */
  rawBody: string;
  body: unknown;
}

export type CallbackVerdict =
  { status: 'accepted'; flow: 'collect' | 'refund' | 'payout'; reference: string } | Refused;
