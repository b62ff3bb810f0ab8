import type { Operator } from '../shared/phone.ts';
import { operatorByCode } from '../core/operators.ts';

/**
 * Where a payout through `/direct-charge/payouts` may go (docs/integrate/api-reference.md#the-banks-list): Malawi's banks, and
 * the two wallets, whose account number is the mobile number. Merchants hard-code these uuids, so
 * each is fixed forever: National Bank of Malawi's is PayChangu's own, the other banks' were
 * drawn once for Lipira, and each wallet's is its operator's `ref_id` from `GET /mobile-money`,
 * so that one id names a wallet across the API.
 */
export interface PayoutBank {
  uuid: string;
  name: string;
  /** The wallet's operator; null for a bank account. */
  wallet: Operator | null;
}

const bank = (uuid: string, name: string): PayoutBank => ({ uuid, name, wallet: null });
const wallet = (operator: Operator): PayoutBank => ({
  uuid: operatorByCode(operator).ref_id,
  name: operatorByCode(operator).name,
  wallet: operator,
});

export const PAYOUT_BANKS: readonly PayoutBank[] = [
  bank('82310dd1-ec9b-4fe7-a32c-2f262ef08681', 'National Bank of Malawi'),
  bank('5954b393-f79c-4bec-80ec-c4bad151f627', 'NBS Bank'),
  bank('31650bf9-cc81-4080-a315-5ada4e84fc16', 'Standard Bank'),
  bank('373657cc-87bc-4924-9f19-faacda43091e', 'FDH Bank'),
  bank('364ecbe4-5ed5-4c00-8c9b-726bade2a99b', 'First Capital Bank'),
  bank('34567086-c8f1-412d-a573-dc814a69ddbb', 'Ecobank'),
  bank('d05d3669-a9b1-417d-8847-527433495ca4', 'CDH Investment Bank'),
  bank('c7a351a2-1df6-40d0-ba9f-bec9b1139a9b', 'Centenary Bank'),
  wallet('airtel'),
  wallet('tnm'),
];

export const PAYOUT_BANK_UUIDS = PAYOUT_BANKS.map((entry) => entry.uuid);

/** The currencies banks take payouts in: every bank and wallet here pays out in kwacha only. */
export const PAYOUT_CURRENCIES = ['MWK'] as const;

export function payoutBankByUuid(uuid: string): PayoutBank | undefined {
  return PAYOUT_BANKS.find((entry) => entry.uuid === uuid);
}
