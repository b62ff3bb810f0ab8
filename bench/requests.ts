// What the bench asks the gateway for, in one place: the HTTP seeding, the scenarios and the bulk
// loader (which writes the rows these requests would have made) must all agree on it.

/** Every checkout session the bench makes is this request with its own tx_ref. */
export const SESSION_REQUEST = {
  amount: 1000,
  currency: 'MWK',
  first_name: 'Jane',
  last_name: 'Banda',
  email: 'jane@example.com',
  callback_url: 'https://example.com/paid',
  return_url: 'https://example.com/cancel',
  customization: { title: 'Bench', description: 'Load test' },
} as const;

export function sessionBody(txRef: string): string {
  return JSON.stringify({ tx_ref: txRef, ...SESSION_REQUEST });
}

/** The sandbox's Airtel test number that succeeds, and Airtel's operator ref (contract §8). */
export function chargeBody(chargeId: string): string {
  return JSON.stringify({
    mobile: '0990000000',
    mobile_money_operator_ref_id: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
    amount: 1000,
    charge_id: chargeId,
    email: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Banda',
  });
}

/** The sandbox's Visa card that succeeds after its one-time code (contract §7). */
export function cardChargeBody(chargeId: string): string {
  return JSON.stringify({
    card_number: '4242 4242 4242 4242',
    expiry: '12/40',
    cvv: '123',
    cardholder_name: 'Jane Banda',
    amount: 1000,
    currency: 'MWK',
    charge_id: chargeId,
    redirect_url: 'https://example.com/paid',
    email: 'jane@example.com',
  });
}

/** A refund of 1 MWK of a seeded charge: each charge of 1,000 can take a thousand of them, so the mixed row never runs out. */
export function refundBody(chargeId: string): string {
  return JSON.stringify({ charge_id: chargeId, amount: 1, reason: 'Bench' });
}

/** A bank payout to National Bank of Malawi (PayChangu's uuid for it), settled at once by the sandbox. */
export function bankPayoutBody(chargeId: string): string {
  return JSON.stringify({
    payout_method: 'bank_transfer',
    bank_uuid: '82310dd1-ec9b-4fe7-a32c-2f262ef08681',
    amount: 100,
    charge_id: chargeId,
    bank_account_name: 'Madalitso Kamwendo',
    bank_account_number: '1001000010',
  });
}

/** A bank transfer charge (contract §10.1): paid by the sandbox's transfer once due. */
export function transferBody(chargeId: string): string {
  return JSON.stringify({
    payment_method: 'mobile_bank_transfer',
    amount: 1000,
    currency: 'MWK',
    charge_id: chargeId,
    email: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Banda',
  });
}

/** Seeded sessions are `seed-0` … `seed-<n-1>`, whether made over HTTP or bulk-loaded, so any index names one. */
export const seedRef = (index: number) => `seed-${index}`;
export const seedChargeId = (index: number) => `seed-charge-${index}`;
export const seedCardChargeId = (index: number) => `seed-card-${index}`;
export const seedPayoutId = (index: number) => `seed-payout-${index}`;
export const seedTransferId = (index: number) => `seed-transfer-${index}`;
