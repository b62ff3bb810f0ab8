/**
 * How a payment was made, in the words verification, webhooks, pages and receipts use: kept apart
 * from the charge model so that a receipt written from an event's payload names it the same way.
 */

export const CHANNEL_NAMES: Record<'mobile_money' | 'card' | 'bank' | 'bank_transfer', string> = {
  mobile_money: 'Mobile Money',
  card: 'Card',
  bank: 'Bank Transfer',
  bank_transfer: 'Mobile Bank Transfer',
};

/** The masked `authorization` of a charge, as far as naming its method needs. */
export interface MethodShown {
  channel: string;
  brand: string | null;
  card_number: string | null;
  provider: string | null;
  mobile_number: string | null;
}

/** `Airtel Money (+265990xxxx00)` or `VISA 424242******4242`: a method named for logs, pages and receipts. */
export function describeAuthorization(authorization: MethodShown): string {
  if (authorization.channel === 'Card')
    return `${authorization.brand ?? 'Card'} ${authorization.card_number ?? ''}`.trim();
  if (authorization.channel === CHANNEL_NAMES.bank_transfer) return 'Bank transfer';
  return `${authorization.provider ?? 'Mobile Money'} (${authorization.mobile_number ?? ''})`;
}
