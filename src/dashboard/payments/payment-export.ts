/**
 * The payments CSV: every row the list's filters select, with what reconciling them needs: the
 * fee, net and refunded amounts, the customer, how they paid and the operator's reference, and
 * whether the money was settled to the main balance. Times are in the gateway's time zone
 * (`TIMEZONE`, named in each row), amounts plain decimals.
 */
import { OPERATOR_NAMES } from '../../shared/phone.ts';
import type { Settlements } from '../balance/settlement-repository.ts';
import { csvAmount, csvLine, type CsvValue } from '../csv.ts';
import { localDateTime } from '../../shared/zone-days.ts';
import type { PaymentListRow } from './payment-list-repository.ts';

export const PAYMENT_CSV_HEADER = [
  'id',
  'type',
  'created_at',
  'completed_at',
  'time_zone',
  'merchant_reference',
  'reference',
  'charge_id',
  'status',
  'channel',
  'method',
  'customer_name',
  'email',
  'mobile',
  'description',
  'currency',
  'amount',
  'fee',
  'net',
  'refunded',
  'operator_reference',
  'settled',
] as const;

/** The charges of the rows whose money reached the merchant's balance: what `Settlements` is asked about. */
export function paidChargeRefs(rows: readonly PaymentListRow[]): string[] {
  return rows.filter((row) => row.status === 'success' && row.charge_ref !== null).map((row) => row.charge_ref!);
}

/** The rows as CSV lines. Fee, net, refunded and settled are for successful payments only; empty otherwise. */
export function paymentCsvLines(rows: readonly PaymentListRow[], settlements: Settlements, timeZone: string): string {
  return rows
    .map((row) => {
      const paid = row.status === 'success';
      const cells: Record<(typeof PAYMENT_CSV_HEADER)[number], CsvValue> = {
        id: row.id,
        type: row.kind === 'session' ? 'checkout_session' : 'direct_charge',
        created_at: localDateTime(row.created_at, timeZone),
        completed_at: row.completed_at === null ? '' : localDateTime(row.completed_at, timeZone),
        time_zone: timeZone,
        merchant_reference: row.merchant_ref,
        reference: row.reference,
        charge_id: row.charge_id ?? '',
        status: row.status,
        channel: row.channel ?? '',
        method: methodOf(row),
        customer_name: [row.first_name, row.last_name].filter(Boolean).join(' '),
        email: row.email ?? '',
        mobile: row.mobile ?? '',
        description: row.description ?? '',
        currency: row.currency,
        amount: csvAmount(row.amount_minor),
        fee: paid ? csvAmount(row.fee_minor) : '',
        net: paid ? csvAmount(row.amount_minor - row.fee_minor) : '',
        refunded: paid ? csvAmount(row.refunded_minor ?? 0) : '',
        operator_reference: row.trans_id ?? '',
        settled: paid && row.charge_ref ? (settlements.settled(row.charge_ref, row.currency) ? 'yes' : 'no') : '',
      };
      return csvLine(PAYMENT_CSV_HEADER.map((column) => cells[column]));
    })
    .join('');
}

/** The operator, or the card by brand and last four digits. */
function methodOf(row: PaymentListRow): string {
  if (row.operator) return OPERATOR_NAMES[row.operator];
  if (row.card_number) return `${row.card_brand ?? 'Card'} ending ${row.card_number.slice(-4)}`;
  return '';
}
