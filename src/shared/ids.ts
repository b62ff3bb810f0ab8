import { randomFillSync, randomInt, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a pool refilled a few kilobytes at a time: asking the system for a
 * few bytes per id cost more than everything else a create does in JavaScript.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform base62 text from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type Mode = 'test' | 'live';

/**
 * A charge row's own id (`charges.id`, and `charge_ref` in the tables that hang off a charge).
 * A merchant never sees it: they know the charge by its `charge_id`. The brand, which exists only
 * for the type checker, keeps the two strings from being passed for each other.
 */
export type ChargeRef = string & { readonly __brand: 'ChargeRef' };

/**
 * Text from outside (an operator's callback, a dashboard URL or search box) looked up as a charge
 * ref: a lookup with it finds that charge or nothing.
 */
export const asChargeRef = (text: string): ChargeRef => text as ChargeRef;

/** Base36 digits of the checkout id's time: enough for epoch milliseconds until the year 5188. */
const CHECKOUT_TIME_DIGITS = 9;

export const ids = {
  merchant: () => `mer_${randomBase62(16)}`,
  apiKey: () => `key_${randomBase62(16)}`,
  secretKey: (mode: Mode) => `sec-${mode}-${randomBase62(32)}`,
  publicKey: (mode: Mode) => `pub-${mode}-${randomBase62(32)}`,
  webhookSecret: () => `whsec_${randomBase62(32)}`,
  /**
   * The hosted checkout id, the customer's only key: its creation time (`now`, epoch ms, as 9
   * base36 digits) then 22 base62 characters (≈131 random bits). The time leads so that sessions
   * made together sort together: a create appends to the id's index (and to the logs' index by
   * owner) instead of dirtying a random page of each, which on SQLite was a third of a create's
   * cost once the table held a few hundred thousand sessions (docs/performance-history.md). Lowercase
   * base36 sorts the same under byte order and PostgreSQL's text collations.
   */
  checkoutToken: (now: number) => now.toString(36).padStart(CHECKOUT_TIME_DIGITS, '0') + randomBase62(22),
  /** The service's own 11-digit reference; uniqueness is enforced by the database and retried. */
  reference: () => String(randomInt(10_000_000_000, 100_000_000_000)),
  txRef: () => randomUUID(),
  /** A one-time bank transfer account's 10-digit number; unique by the database, drawn again on a clash. */
  bankTransferAccount: () => String(randomInt(1_000_000_000, 10_000_000_000)),
  /** A charge row's own id, never shown to a merchant. */
  chargeRef: () => `chg_${randomBase62(16)}` as ChargeRef,
  /** The public `charge_id` of a checkout attempt (merchants choose their own for direct charges). */
  attemptChargeId: () => `ch_${randomBase62(20)}`,
  event: () => `evt_${randomBase62(20)}`,
  /** A webhook delivery, also sent as the Standard Webhooks `webhook-id`. */
  delivery: () => `msg_${randomBase62(20)}`,
  email: () => `eml_${randomBase62(20)}`,
  /** A refund's row; merchants know it by `refund`. */
  refundRow: () => `rfd_${randomBase62(16)}`,
  refund: () => `rf_${randomBase62(20)}`,
  ledgerAccount: () => `acc_${randomBase62(16)}`,
  ledgerTransaction: () => `ltx_${randomBase62(20)}`,
  user: () => `usr_${randomBase62(16)}`,
  invitation: () => `inv_${randomBase62(16)}`,
  recoveryCode: () => `rcv_${randomBase62(16)}`,
  auditEntry: () => `aud_${randomBase62(20)}`,
  signIn: () => `sgn_${randomBase62(20)}`,
  payoutSchedule: () => `pys_${randomBase62(16)}`,
  paymentLink: () => `plink_${randomBase62(16)}`,
  /**
   * The public part of a payment link's URL: 12 base62 characters (≈71 random bits), short enough
   * to type from a counter sign, far too many to enumerate at any rate the page allows.
   */
  paymentLinkSlug: () => randomBase62(12),
};
