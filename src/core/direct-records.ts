import type { Database } from '../db/database.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import {
  OPERATOR_NAMES,
  OPERATOR_NAMES_WITH_ARTICLE,
  maskMsisdn,
  parseMalawiMobile,
  type MalawiMobile,
} from '../shared/phone.ts';
import { requestHash } from '../shared/request-hash.ts';
import { findChargeByChargeId, insertChargeIfNew, type Charge } from './charge-repository.ts';
import { newDirectCharge } from './pending-charge.ts';
import { operatorByRef } from './operators.ts';
import type { ChargeRef } from '../shared/ids.ts';

/** What a direct charge or payout request carries (docs/integrate/api-reference.md#mobile-money-charges), after validation. */
export interface DirectRequest {
  mobile: string;
  mobile_money_operator_ref_id: string;
  amount: number;
  charge_id: string;
  email?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  /** Optional: Airtel Money and TNM Mpamba move MWK only (`refuseOtherThanKwacha`). */
  currency?: string | undefined;
}

/**
 * Refuses a currency other than MWK by name, whatever the route would otherwise do: a wallet
 * receives and pays kwacha only, so `"USD"` left unread would move that many kwacha instead.
 */
export function refuseOtherThanKwacha(currency: string | undefined, message: string): void {
  if (currency !== undefined && currency !== 'MWK') throw ApiError.field('currency', message);
}

/** The wallet a request names: a Malawian number that belongs to the operator it names. */
export function walletOf(request: DirectRequest): MalawiMobile {
  const mobile = parseMalawiMobile(request.mobile);
  if (!mobile) throw ApiError.field('mobile', 'The mobile must be an Airtel Money or TNM Mpamba number.');
  const operator = operatorByRef(request.mobile_money_operator_ref_id);
  if (!operator)
    throw ApiError.field('mobile_money_operator_ref_id', 'The selected mobile money operator ref id is invalid.');
  if (operator.short_code !== mobile.operator) {
    throw ApiError.field(
      'mobile',
      `The mobile is ${OPERATOR_NAMES_WITH_ARTICLE[mobile.operator]} number, not ${operator.name}.`,
    );
  }
  return mobile;
}

/**
 * The charge a retry of an earlier request is answered with (docs/integrate/api-reference.md#idempotency: same `charge_id`,
 * same parameters, still pending), or the 400 for a `charge_id` already taken.
 */
export async function existingFor(
  db: Kysely<DB>,
  owner: Principal,
  request: { charge_id: string },
  hash: string,
): Promise<Charge | null> {
  const existing = await findChargeByChargeId(db, owner, request.charge_id);
  if (!existing) return null;
  if (existing.request_hash === hash && existing.status === 'pending') return existing;
  throw ApiError.field('charge_id', 'The charge id has already been taken.');
}

/** Only the fields that define the payment count: unknown fields are ignored (docs/integrate/api-reference.md#tolerance), so they cannot make a retry a duplicate. */
export function hashDirectRequest(
  kind: Charge['kind'],
  request: DirectRequest & { transaction_status?: string | undefined },
): string {
  const { mobile_money_operator_ref_id, amount, charge_id, email, first_name, last_name, transaction_status } = request;
  const mobile = parseMalawiMobile(request.mobile)?.msisdn ?? request.mobile;
  return requestHash({
    kind,
    mobile,
    mobile_money_operator_ref_id,
    amount,
    charge_id,
    email,
    first_name,
    last_name,
    transaction_status,
  });
}

export interface NewDirectRecord {
  /** The record's id when the provider was already given it as our reference. */
  id?: ChargeRef;
  owner: Principal;
  request: DirectRequest;
  kind: Charge['kind'];
  type: 'Direct API Payment' | 'API Payout';
  wallet: MalawiMobile;
  hash: string;
  feeMinor: number;
  nextAction: Charge['next_action'];
  providerState: string | null;
  checkAt: number | null;
}

/** Where records are written: the database, and the transactions that group on SQLite. */
type Store = Pick<Database, 'db' | 'transact'>;

/** Work done in the transaction that records a charge or payout. */
export type Alongside = (trx: Kysely<DB>, charge: Charge) => Promise<void>;

/**
 * Inserts a direct charge or payout with its first log, running `alongside` in the same
 * transaction (a payout's reservation). A concurrent request with the same `charge_id` that got
 * there first makes this one a replay or a duplicate, never a second record.
 */
export function insertDirectRecord(
  store: Store,
  record: NewDirectRecord,
  now: number,
  alongside: Alongside = async () => undefined,
): Promise<{ charge: Charge; created: boolean }> {
  return insertUniqueRecord(
    store,
    record,
    () => directCharge(record, now),
    async (trx, charge) => {
      await alongside(trx, charge);
      await addLog(
        trx,
        charge.id,
        `${record.kind === 'payout' ? 'Payout' : 'Payment'} requested to ${charge.mobile} (${OPERATOR_NAMES[record.wallet.operator]})`,
        now,
      );
    },
  );
}

/**
 * Inserts the record `make` builds (afresh on each try: its own `ref_id` may be what conflicted)
 * and runs `alongside` in the same transaction, unless a record with its `charge_id` exists: the
 * retry it answers, or the 400 for a `charge_id` already taken.
 */
export async function insertUniqueRecord(
  { db, transact }: Store,
  identity: { owner: Principal; request: { charge_id: string }; hash: string },
  make: () => Charge,
  alongside: Alongside,
): Promise<{ charge: Charge; created: boolean }> {
  for (;;) {
    const charge = make();
    const inserted = await transact(async (trx) => {
      if (!(await insertChargeIfNew(trx, charge))) return false;
      await alongside(trx, charge);
      return true;
    });
    if (inserted) return { charge, created: true };
    const existing = await existingFor(db, identity.owner, identity.request, identity.hash);
    if (existing) return { charge: existing, created: false };
  }
}

function directCharge(record: NewDirectRecord, now: number): Charge {
  const { wallet } = record;
  return newDirectCharge(
    record,
    {
      id: record.id ?? ids.chargeRef(),
      kind: record.kind,
      channel: 'mobile_money',
      operator: wallet.operator,
      mobile: maskMsisdn(wallet.msisdn),
      next_action: record.nextAction,
      provider_state: record.providerState,
      check_at: record.checkAt,
      fee_minor: record.feeMinor,
      type: record.type,
    },
    now,
  );
}
