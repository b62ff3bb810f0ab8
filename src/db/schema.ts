import type { Generated } from 'kysely';
import type { ChargeRef, Mode } from '../shared/ids.ts';

/**
 * Table shapes as Kysely sees them. Money is in minor units (bigint), times are epoch
 * milliseconds (bigint), booleans are 0/1 integers and JSON is text, so that one schema
 * means the same on SQLite and PostgreSQL.
 */
export interface MerchantsTable {
  id: string;
  name: string;
  email: string;
  webhook_url: string | null;
  webhooks_enabled: number;
  receipts_enabled: number;
  fee_bps: number;
  /** An https URL shown on the hosted checkout page and receipts when a session has no logo of its own. */
  logo_url: string | null;
  /** `#rrggbb`, used only as an accent (a bar, a border), never behind or as text. */
  brand_color: string | null;
  created_at: number;
  updated_at: number;
}

/** A merchant's webhook signing secret in one mode (both modes of a new merchant start with one secret). */
export interface WebhookSecretsTable {
  merchant_id: string;
  mode: Mode;
  secret: string;
  /** The secret the last roll replaced: it signs beside `secret` until `previous_until`, and never after. */
  previous_secret: string | null;
  previous_until: number | null;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  kind: 'secret' | 'public';
  /** A secret's first characters, or a public key in full: what may be shown again. */
  visible: string;
  token_hash: string;
  expires_at: number | null;
  created_at: number;
}

export interface CheckoutSessionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  generation: 'current' | 'legacy';
  tx_ref: string;
  reference: string;
  status: 'pending' | 'success' | 'failed';
  amount_minor: number;
  currency: string;
  first_name: string;
  last_name: string | null;
  email: string | null;
  callback_url: string | null;
  return_url: string | null;
  title: string | null;
  description: string | null;
  logo: string | null;
  meta: string | null;
  request_hash: string;
  attempts: number;
  failed_attempts: Generated<number>;
  paid_charge_id: ChargeRef | null;
  /**
   * The one attempt in flight: the charge whose outcome the session counts. Only this charge may
   * pay the session or count as a failed attempt; a success of any other is refunded.
   */
  pending_charge_id: Generated<ChargeRef | null>;
  fee_minor: number;
  expires_at: number;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
  /** The merchant page's origin, for a session created by the inline popup: the one origin that may frame its pages. */
  frame_origin: string | null;
  /** The payment link that opened the session, if one did: its payments, and its holds while pending. */
  payment_link_id: string | null;
}

export type ChargeStatus = 'pending' | 'success' | 'failed';

export interface ChargesTable {
  id: ChargeRef;
  merchant_id: string;
  mode: Mode;
  charge_id: string;
  ref_id: string;
  /** The checkout session this charge is an attempt of; null for direct charges and payouts. */
  session_id: string | null;
  kind: 'payment' | 'payout';
  /**
   * `bank`: a payout to a bank account (its recipient in `payout_recipients`); `bank_transfer`: a
   * payment into a one-time account (in `bank_transfer_accounts`).
   */
  channel: 'mobile_money' | 'card' | 'bank' | 'bank_transfer';
  operator: 'airtel' | 'tnm' | null;
  /** Masked (`+265990xxxx00`): the full number is only ever handed to the provider. */
  mobile: string | null;
  card_brand: string | null;
  /** Masked (`424242******4242`): the full number and the CVV are never stored. */
  card_number: string | null;
  card_expiry: string | null;
  status: ChargeStatus;
  /**
   * What the charge waits for: the customer approving on the phone, the customer's one-time code,
   * the issuer's answer to a code that was sent (`confirming`: the code can no longer be abandoned),
   * or the customer at a live acquirer's own 3-D Secure page (`redirect`). A direct card charge has
   * none while its provider is being asked.
   */
  next_action: 'approve' | 'otp' | 'confirming' | 'redirect' | null;
  /** Merchant-facing: what verification and webhooks say about a failure. */
  failure_reason: string | null;
  /**
   * The provider's reason for a failure as a code (`FailureCode` in src/connectors/provider.ts), from
   * which the hosted page words its advice to the customer; null when the provider gave none.
   */
  failure_code: Generated<string | null>;
  /** Opaque to everything but the provider that wrote it. */
  provider_state: string | null;
  /** When to ask the provider again about a pending charge. */
  check_at: number | null;
  /** When a callback last made the gateway ask its provider about it: what keeps callbacks to one ask per window (src/payments/provider-asks.ts). */
  callback_asked_at: Generated<number | null>;
  /** Why a person should look at this live charge (no final answer from its operator for too long); null when nothing is wrong. */
  review_reason: Generated<string | null>;
  amount_minor: number;
  currency: string;
  fee_minor: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  trans_id: string | null;
  attempts: number;
  created_at: number;
  completed_at: number | null;
  updated_at: number;
  /** Direct charges and payouts: a digest of the request, to tell a retry from a duplicate. */
  request_hash: Generated<string | null>;
  /** The record's `type` for direct API records: `Direct API Payment` or `API Payout`. */
  type: Generated<string | null>;
  /**
   * How much of a successful payment is given back or being given back: refunds pending or
   * succeeded, and a success its session could not count (refunded whole). Never above
   * `amount_minor`: each refund raises it with a guarded conditional UPDATE, and a failed
   * merchant refund lowers it again.
   */
  refunded_minor: Generated<number>;
}

/** Who a payout through `/direct-charge/payouts` goes to (a bank account, or a wallet from the banks list). */
export interface PayoutRecipientsTable {
  /** The payout's charge row (its internal id). */
  charge_ref: ChargeRef;
  merchant_id: string;
  mode: Mode;
  bank_uuid: string;
  /** As the banks list named it when the payout was made. */
  bank_name: string;
  account_name: string;
  /** As the merchant sent it: shown back to that merchant only. */
  account_number: string;
  /** The payout's own `created_at`, for the list's order. */
  created_at: number;
}

/** The one-time account a bank transfer charge is paid into (docs/integrate/api-reference.md#bank-transfer-charges), and who paid it. */
export interface BankTransferAccountsTable {
  /** The charge row (its internal id). */
  charge_ref: ChargeRef;
  bank_name: string;
  /** Unique across the gateway: an arriving transfer is matched to its charge by it. */
  account_number: string;
  account_name: string;
  /** When the account stops taking transfers (an hour after it was made). */
  expires_at: number;
  /** Set when a transfer paid it; the account number masked (`******7890`). */
  payer_bank: string | null;
  payer_account_number: string | null;
  payer_account_name: string | null;
}

/** A direct card charge's 3-D Secure step: its link, where the customer goes after it, the wrong codes typed. */
export interface CardAuthenticationsTable {
  /** The charge row (its internal id). */
  charge_ref: ChargeRef;
  /** The `orderReference` and the `reference` of `/3ds/auth?reference=…`: random, the link's only key. */
  reference: string;
  /** The merchant's page the browser goes to afterwards, with `charge_id` and `status` added. */
  redirect_url: string;
  wrong_codes: Generated<number>;
  /** After this the link no longer works and a charge still waiting for its code fails. */
  expires_at: number;
  created_at: number;
}

/** `refunds_due`: money a merchant's customers are owed back, held until the refund goes out. */
export type AccountKind = 'collection' | 'main' | 'payout_reserve' | 'refunds_due' | 'fees' | 'external';

export interface LedgerAccountsTable {
  id: string;
  /** A merchant id, or `system` for the gateway's own fee and outside-world accounts. */
  owner: string;
  mode: Mode;
  currency: string;
  kind: AccountKind;
  /** The sum of the account's entries, kept in step with them in the same transaction. */
  balance_minor: number;
  created_at: number;
  updated_at: number;
}

export interface LedgerTransactionsTable {
  id: string;
  mode: Mode;
  kind:
    | 'collection'
    | 'settlement'
    | 'payout_reserve'
    | 'payout_release'
    | 'payout_complete'
    | 'refund_hold'
    | 'refund_reserve'
    | 'refund_release'
    | 'refund_complete';
  /** The charge, payout or refund it belongs to (its internal id), or null for a settlement. */
  reference: string | null;
  created_at: number;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  transaction_id: string;
  account_id: string;
  /** Signed: what the entry adds to the account's balance. A transaction's entries sum to zero. */
  amount_minor: number;
}

export type RefundStatus = 'pending' | 'success' | 'failed';

export interface RefundsTable {
  id: string;
  /** The public id merchants read. */
  refund_id: string;
  merchant_id: string;
  mode: Mode;
  /** The refunded charge (its internal id). */
  charge_ref: ChargeRef;
  /**
   * `uncounted`: a success its checkout session could not count, given back automatically from
   * money held for it; `merchant`: asked for by the merchant, taken from its balance.
   */
  source: 'uncounted' | 'merchant';
  amount_minor: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  failure_reason: string | null;
  /** Opaque to everything but the provider; null until the refund was handed to it. */
  provider_state: string | null;
  /** When to hand the refund to the provider, or ask it again. */
  check_at: number | null;
  /** As a charge's: when a callback last made the gateway ask its provider about it. */
  callback_asked_at: Generated<number | null>;
  /** As a charge's: why a person should look at this live refund, or null. */
  review_reason: Generated<string | null>;
  /**
   * The payment fee's share this merchant refund gives back to the merchant (REFUND_RETURNS_FEE):
   * the fees account pays it toward the refund when the refund goes out. 0 when none.
   */
  fee_returned_minor: Generated<number>;
  /**
   * Why a merchant refund waits for its balance, while it does: nothing is reserved for it, and
   * the settler reserves it once incoming money covers it. Null otherwise.
   */
  pending_reason: Generated<string | null>;
  /** Every reason it waited for, as JSON `[{reason, since, until}]` (epoch ms; `until` null while it waits); null if it never waited. */
  pending_reasons: Generated<string | null>;
  /**
   * The operator's own id for the refund once it succeeded: Airtel's id of the disbursement that
   * gave back part of a payment, or of the reversed payment for a whole one.
   */
  trans_id: Generated<string | null>;
  created_at: number;
  completed_at: number | null;
  updated_at: number;
}

export interface EventsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  /** `checkout.payment`, `api.charge.payment`, `api.payout` or `api.refund`. */
  type: string;
  subject_id: string;
  /** The webhook body as it will be sent, fixed when the state changed. */
  payload: string;
  created_at: number;
}

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  /** Also the Standard Webhooks `webhook-id`: the same on every retry and re-send. */
  id: string;
  event_id: string;
  merchant_id: string;
  mode: Mode;
  event_type: string;
  tx_ref: string | null;
  charge_id: string | null;
  /** The merchant's webhook URL when the event happened. */
  url: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: number;
  /** A worker's claim: others leave the row alone until then, and a crashed worker's claim lapses. */
  locked_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  /** The first 1 KiB of what the receiver answered. */
  response_body: string | null;
  error: string | null;
}

export interface EmailsTable {
  id: string;
  /** The payment's or refund's event a receipt tells about; null for an email about a dashboard account. */
  event_id: string | null;
  /** Null for a gateway operator's set-password link. */
  merchant_id: string | null;
  /** One of each per payment or refund: the unique (event_id, kind) makes a receipt go out once. */
  kind:
    'merchant_receipt' | 'customer_receipt' | 'merchant_refund_receipt' | 'customer_refund_receipt' | AccountEmailKind;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface LogsTable {
  id: Generated<number>;
  owner_id: string;
  type: string;
  message: string;
  created_at: number;
}

export interface AppStateTable {
  key: string;
  value: string;
}

/**
 * Emails about a dashboard account: its set-password link, an invitation its address could not
 * take, a link to reset a forgotten password, a recovery code used to sign in, a password or
 * two-factor reset someone else made, a sign-in from a browser never seen.
 */
export type AccountEmailKind =
  | 'set_password'
  | 'invitation_refused'
  | 'password_reset'
  | 'recovery_code_used'
  | 'password_reset_notice'
  | 'two_factor_reset_notice'
  | 'new_browser_sign_in';

/** `removed`: taken off the team; the row stays so that the audit log still names who did what. */
export type UserRole = 'owner' | 'developer' | 'viewer' | 'operator' | 'removed';

/** A dashboard user: a merchant's (owner, developer, viewer) or the gateway's (operator, no merchant). */
export interface UsersTable {
  id: string;
  merchant_id: string | null;
  /** Lowercased: one account per address, however it is typed. */
  email: string;
  role: UserRole;
  /** `scrypt$N$r$p$salt$hash`; null until the user sets one through a one-time link. */
  password_hash: string | null;
  /** Base32 TOTP secret once two-factor sign-in is on; never shown again after enrolment. */
  totp_secret: string | null;
  /** The last time step whose code was accepted: the same code is not taken twice. */
  totp_last_step: number | null;
  failed_logins: Generated<number>;
  locked_until: number | null;
  /** Set while the user may not sign in (`lipira users disable`); their sessions ended with it. */
  disabled_at: number | null;
  /** When someone else turned the user's two-factor sign-in off; cleared at their next sign-in, which asks them to set it up again. */
  two_factor_reset_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A signed-in browser. The id is the SHA-256 of the cookie's token, which is never stored. */
export interface UserSessionsTable {
  id: string;
  user_id: string;
  /** 1 between a right password and the second factor's code: the session opens no page yet. */
  awaiting_code: Generated<number>;
  created_at: number;
  last_seen_at: number;
  /** The absolute end, however active the session is. */
  expires_at: number;
}

/**
 * A completed sign-in (both factors), as the user's account page lists it; a user's newest 100
 * are kept. `browser_hash` is the SHA-256 of the random token the browser keeps in its own
 * long-lived cookie: a sign-in whose browser no row of the user names is from a new browser.
 */
export interface SignInsTable {
  id: string;
  user_id: string;
  /** The client's address as the gateway judges it (behind a proxy, CLIENT_ADDRESS_HEADER's). */
  address: string;
  /** A short name of the browser from its User-Agent: "Chrome on Android". */
  browser: string;
  browser_hash: string;
  created_at: number;
}

/**
 * An invitation to a merchant's team: listed on its team page while pending and unexpired. The
 * user is made when its link is used; an address with an account elsewhere is sent no link.
 */
export interface InvitationsTable {
  id: string;
  merchant_id: string;
  /** Lowercased, as users' addresses are. */
  email: string;
  role: Exclude<UserRole, 'operator' | 'removed'>;
  /** The user who invited. */
  invited_by: string;
  /** SHA-256 of the link's token (a token never sent when the address has an account elsewhere). */
  token_hash: string;
  status: 'pending' | 'accepted' | 'cancelled';
  created_at: number;
  expires_at: number;
  /** When it was accepted or cancelled. */
  ended_at: number | null;
}

/** What a password link was sent for: a new account's first password, or a forgotten one. */
export type PasswordLinkPurpose = 'set' | 'reset';

/** A one-time set-password link; the id is the SHA-256 of the link's token. */
export interface PasswordLinksTable {
  id: string;
  user_id: string;
  /** Decides how long it works and what using it is recorded as. */
  purpose: PasswordLinkPurpose;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/**
 * A two-factor recovery code, usable once in place of the authenticator's code. Only the SHA-256
 * of the code is kept (80 random bits: a slow hash adds nothing); the user saw it once.
 */
export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

/**
 * A merchant's automatic payouts in one mode (one schedule per merchant and mode): everything in
 * the main balance paid out, daily or on one weekday, to one recipient, once the balance reaches
 * `minimum_minor` (docs/dashboard/README.md#automatic-payouts).
 */
/** Whether the link's page asks a customer detail, and whether it must be given. */
export type CustomerFieldSetting = 'off' | 'optional' | 'required';

/** A merchant's payment link: a page at `/pay/{slug}` opening checkout sessions (src/payment-links/). */
export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  /** The unguessable part of the link's URL. */
  slug: string;
  title: string;
  description: string | null;
  /** Null: the customer types the amount (no less than `min_amount_minor`). */
  amount_minor: number | null;
  min_amount_minor: number | null;
  currency: 'MWK' | 'USD';
  /** 0: single-use, paid once. */
  reusable: number;
  max_payments: number | null;
  expires_at: number | null;
  /** JSON `{name, email, phone}`, each a `CustomerFieldSetting`. */
  customer_fields: string;
  redirect_url: string | null;
  meta: string | null;
  active: number;
  payments_count: number;
  amount_collected_minor: number;
  created_at: number;
  updated_at: number;
}

export interface PayoutSchedulesTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  frequency: 'daily' | 'weekly';
  /** The ISO weekday a weekly schedule runs on: 1 Monday … 7 Sunday; null for a daily one. */
  weekday: number | null;
  minimum_minor: number;
  currency: string;
  /** Who it pays, as a payout through the banks list names them: a wallet's account number is its mobile number. */
  bank_uuid: string;
  bank_name: string;
  account_name: string;
  account_number: string;
  /** When the next run is due: the schedule's time of day in the gateway's TIMEZONE. */
  next_run_at: number;
  /** A worker's claim on the run due: others leave it until then, and a crashed worker's claim lapses. */
  claimed_until: number | null;
  /** The last run: when it was due, the payout it made (none when it was skipped) and what it did, for the page. */
  last_run_at: number | null;
  last_payout_ref: ChargeRef | null;
  last_result: string | null;
  /** One more with every save: a run claimed before a change is withdrawn rather than paid as the old schedule said. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** Who changed money, secrets or users, and when: written in the transaction of the change. */
export interface AuditLogTable {
  id: string;
  merchant_id: string | null;
  /** Null when the change was made from the command line, or by an automatic payout's run. */
  user_id: string | null;
  action: string;
  /** What was changed: a user's, charge's or key's id. */
  subject: string;
  /** JSON text, never holding a secret. */
  detail: string | null;
  created_at: number;
}

export interface DB {
  merchants: MerchantsTable;
  webhook_secrets: WebhookSecretsTable;
  api_keys: ApiKeysTable;
  checkout_sessions: CheckoutSessionsTable;
  charges: ChargesTable;
  payout_recipients: PayoutRecipientsTable;
  bank_transfer_accounts: BankTransferAccountsTable;
  card_authentications: CardAuthenticationsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  emails: EmailsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  refunds: RefundsTable;
  logs: LogsTable;
  app_state: AppStateTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  password_links: PasswordLinksTable;
  recovery_codes: RecoveryCodesTable;
  audit_log: AuditLogTable;
  invitations: InvitationsTable;
  sign_ins: SignInsTable;
  payout_schedules: PayoutSchedulesTable;
  payment_links: PaymentLinksTable;
}
