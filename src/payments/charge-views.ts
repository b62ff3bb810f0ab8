import { OPERATOR_NAMES } from '../shared/phone.ts';
import { formatNullableTimestamp } from '../shared/time.ts';
import type { Charge } from './charge-repository.ts';

export const CHANNEL_NAMES: Record<Charge['channel'], string> = { mobile_money: 'Mobile Money', card: 'Card' };

/** How a charge was paid, as verification and webhooks show it (never more than masked numbers). */
export function authorizationOf(charge: Charge) {
  return {
    channel: CHANNEL_NAMES[charge.channel],
    card_number: charge.card_number,
    expiry: charge.card_expiry,
    brand: charge.card_brand,
    provider: charge.operator ? OPERATOR_NAMES[charge.operator] : null,
    mobile_number: charge.mobile,
    completed_at: formatNullableTimestamp(charge.completed_at),
  };
}

export type AuthorizationView = ReturnType<typeof authorizationOf>;

/** `Airtel Money (+265990xxxx00)` or `VISA 424242******4242`: a method named for logs, pages and receipts. */
export function describeAuthorization(authorization: Pick<AuthorizationView, 'channel' | 'brand' | 'card_number' | 'provider' | 'mobile_number'>): string {
  if (authorization.channel === 'Card') return `${authorization.brand ?? 'Card'} ${authorization.card_number ?? ''}`.trim();
  return `${authorization.provider ?? 'Mobile Money'} (${authorization.mobile_number ?? ''})`;
}

export function describeMethod(charge: Charge): string {
  return describeAuthorization(authorizationOf(charge));
}
