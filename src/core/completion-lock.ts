import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { isPostgres } from '../db/dialect.ts';
import { prepared } from '../db/prepared.ts';
import type { Merchant } from '../merchants/merchant-repository.ts';
import type { ChargeRef } from '../shared/ids.ts';
import type { Charge } from './charge-repository.ts';
import type { CheckoutSession } from './session-repository.ts';

type Db = Kysely<DB>;

/** What completing an attempt needs of its session: whether the attempt is in flight, and the link it counts toward. */
export type SessionForCompletion = Pick<
  CheckoutSession,
  'status' | 'pending_charge_id' | 'payment_link_id' | 'amount_minor'
>;

/** An attempt's charge as it now is, with what its completion needs of the session and, when asked, the merchant. */
export interface LockedAttempt {
  charge: Charge;
  session: SessionForCompletion;
  merchant?: Merchant;
}

/** The session's columns beside the charge's row, named apart from the charge's own. */
const SESSION_COLUMNS = [
  'checkout_sessions.status as session_status',
  'checkout_sessions.pending_charge_id as session_pending_charge_id',
  'checkout_sessions.payment_link_id as session_payment_link_id',
  'checkout_sessions.amount_minor as session_amount_minor',
] as const;

/** The merchant's columns beside the charge's row, named apart from the charge's own; its id is the charge's `merchant_id`. */
const MERCHANT_COLUMNS = [
  'merchants.name as merchant_name',
  'merchants.email as merchant_email',
  'merchants.webhook_url as merchant_webhook_url',
  'merchants.webhooks_enabled as merchant_webhooks_enabled',
  'merchants.receipts_enabled as merchant_receipts_enabled',
  'merchants.fee_bps as merchant_fee_bps',
  'merchants.logo_url as merchant_logo_url',
  'merchants.brand_color as merchant_brand_color',
  'merchants.created_at as merchant_created_at',
  'merchants.updated_at as merchant_updated_at',
] as const;

function attemptWithSession(db: Db, chargeRef: ChargeRef, sessionId: string) {
  const query = db
    .selectFrom('checkout_sessions')
    .innerJoin('charges', (join) =>
      join.on('charges.id', '=', chargeRef).onRef('charges.session_id', '=', 'checkout_sessions.id'),
    )
    .selectAll('charges')
    .select(SESSION_COLUMNS)
    .where('checkout_sessions.id', '=', sessionId);
  // PostgreSQL takes the locks in the order of these clauses: the session, then the charge. In the
  // other order a completion waiting for the session would hold the charge its holder is about to
  // update, and the two would deadlock (tried).
  return isPostgres(db) ? query.forUpdate(['checkout_sessions']).forNoKeyUpdate(['charges']) : query;
}

const lockedAttempt = prepared(attemptWithSession);

const lockedAttemptWithMerchant = prepared((db, chargeRef: ChargeRef, sessionId: string) =>
  attemptWithSession(db, chargeRef, sessionId)
    .innerJoin('merchants', 'merchants.id', 'charges.merchant_id')
    .select(MERCHANT_COLUMNS),
);

/**
 * The session locked as `lockSession` locks it, with the attempt's charge as it now is and, with
 * `withMerchant`, the merchant's row, in one statement. On PostgreSQL the charge is locked too,
 * after the session: under READ COMMITTED a locking read that waited for another transaction
 * answers the newest version of the rows it locks, but a joined row it does not lock as the
 * statement's snapshot, taken before the wait, saw it. So a completion that waited for another's
 * commit reads the charge that one ended, not the pending charge it was handed. Undefined when
 * the session has no such charge (an attempt refused at once leaves none); the merchant is always
 * found, being the charge's foreign key, and merchants are never removed.
 */
export async function lockSessionForCompletion(
  trx: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  { withMerchant }: { withMerchant: boolean },
): Promise<LockedAttempt | undefined> {
  if (!withMerchant) {
    const row = (await lockedAttempt(trx, chargeRef, sessionId))[0];
    return row && attemptOf(row);
  }
  const row = (await lockedAttemptWithMerchant(trx, chargeRef, sessionId))[0];
  if (!row) return undefined;
  const {
    merchant_name: name,
    merchant_email: email,
    merchant_webhook_url: webhook_url,
    merchant_webhooks_enabled: webhooks_enabled,
    merchant_receipts_enabled: receipts_enabled,
    merchant_fee_bps: fee_bps,
    merchant_logo_url: logo_url,
    merchant_brand_color: brand_color,
    merchant_created_at: created_at,
    merchant_updated_at: updated_at,
    ...rest
  } = row;
  const { charge, session } = attemptOf(rest);
  const merchant: Merchant = {
    id: charge.merchant_id,
    name,
    email,
    webhook_url,
    webhooks_enabled,
    receipts_enabled,
    fee_bps,
    logo_url,
    brand_color,
    created_at,
    updated_at,
  };
  return { charge, session, merchant };
}

/** Splits the session's columns off the charge's row. */
function attemptOf({
  session_status: status,
  session_pending_charge_id: pending_charge_id,
  session_payment_link_id: payment_link_id,
  session_amount_minor: amount_minor,
  ...charge
}: Charge & { [K in keyof SessionForCompletion as `session_${K}`]: SessionForCompletion[K] }): LockedAttempt {
  return { charge, session: { status, pending_charge_id, payment_link_id, amount_minor } };
}
