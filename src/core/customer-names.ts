/**
 * How the hosted page names a customer's card or wallet to them: as they know it (`Mastercard ••••
 * 4444`, `0990xxxx00`), not as logs and webhooks record it (`MASTERCARD 555555******4444`,
 * `+265990xxxx00`).
 */
import type { Charge } from './charge-repository.ts';
import { OPERATOR_NAMES, localMaskedMobile } from '../shared/phone.ts';

const BRAND_NAMES: Record<string, string> = { VISA: 'Visa', MASTERCARD: 'Mastercard' };

/** `Mastercard •••• 4444`: the brand and the last four digits only. */
export function cardName(charge: Pick<Charge, 'card_brand' | 'card_number'>): string {
  const brand = (charge.card_brand && BRAND_NAMES[charge.card_brand]) ?? 'Card';
  return charge.card_number ? `${brand} •••• ${charge.card_number.slice(-4)}` : brand;
}

/** `Airtel Money 0990xxxx00`. */
export function walletName(charge: Pick<Charge, 'operator' | 'mobile'>): string {
  const operator = charge.operator ? OPERATOR_NAMES[charge.operator] : 'Mobile money';
  return charge.mobile ? `${operator} ${localMaskedMobile(charge.mobile)}` : operator;
}

/** The instrument of an attempt, as the customer knows it. */
export function instrumentName(
  charge: Pick<Charge, 'channel' | 'card_brand' | 'card_number' | 'operator' | 'mobile'>,
): string {
  if (charge.channel === 'bank_transfer') return 'Bank transfer';
  return charge.channel === 'card' ? cardName(charge) : walletName(charge);
}
