import type { Principal } from '../merchants/merchant-service.ts';
import { ids } from '../shared/ids.ts';
import type { Charge } from './charge-repository.ts';

/** What a new charge's flow decides; everything else every new charge starts the same. */
export type PendingChargeFields = Pick<
  Charge,
  | 'id'
  | 'merchant_id'
  | 'mode'
  | 'charge_id'
  | 'session_id'
  | 'kind'
  | 'channel'
  | 'amount_minor'
  | 'currency'
  | 'check_at'
  | 'request_hash'
  | 'type'
> &
  Partial<
    Pick<
      Charge,
      | 'operator'
      | 'mobile'
      | 'card_brand'
      | 'card_number'
      | 'card_expiry'
      | 'next_action'
      | 'provider_state'
      | 'fee_minor'
      | 'first_name'
      | 'last_name'
      | 'email'
    >
  >;

/**
 * A charge as it is recorded before its provider is asked: pending, on its first attempt, with no
 * outcome and nothing refunded, under a fresh reference (made afresh on each insert try: the
 * reference may be what conflicted).
 */
export function newPendingCharge(fields: PendingChargeFields, now: number): Charge {
  return {
    ref_id: ids.reference(),
    operator: null,
    mobile: null,
    card_brand: null,
    card_number: null,
    card_expiry: null,
    next_action: null,
    provider_state: null,
    fee_minor: 0,
    first_name: null,
    last_name: null,
    email: null,
    ...fields,
    status: 'pending',
    failure_reason: null,
    failure_code: null,
    trans_id: null,
    attempts: 1,
    created_at: now,
    completed_at: null,
    updated_at: now,
    refunded_minor: 0,
    review_reason: null,
    callback_asked_at: null,
  };
}

/** What every direct API request (a charge or a payout) says of itself: whose, which, how much, and who pays. */
export interface DirectRequest {
  owner: Principal;
  request: {
    charge_id: string;
    amount: number;
    first_name?: string | null;
    last_name?: string | null;
    email?: string | null;
  };
  /** The request's digest, to tell a retry from a duplicate. */
  hash: string;
}

/** What a direct charge's channel decides; the request gives the rest. */
export type DirectChargeFields = Omit<
  PendingChargeFields,
  'merchant_id' | 'mode' | 'charge_id' | 'session_id' | 'amount_minor' | 'currency' | 'request_hash'
> &
  Partial<Pick<Charge, 'currency'>>;

/**
 * A direct API charge or payout as it is recorded before its provider is asked: the merchant's
 * own `charge_id`, the amount in whole kwacha (MWK unless the channel says otherwise) and the
 * customer's names as the request gave them, unless the channel's fields say otherwise.
 */
export function newDirectCharge(
  { owner, request, hash }: DirectRequest,
  fields: DirectChargeFields,
  now: number,
): Charge {
  return newPendingCharge(
    {
      merchant_id: owner.merchantId,
      mode: owner.mode,
      charge_id: request.charge_id,
      session_id: null,
      amount_minor: request.amount * 100,
      currency: 'MWK',
      first_name: request.first_name ?? null,
      last_name: request.last_name ?? null,
      email: request.email ?? null,
      request_hash: hash,
      ...fields,
    },
    now,
  );
}
