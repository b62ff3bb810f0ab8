import type { LogEntry } from '../logs/log-repository.ts';
import type { Charge } from '../core/charge-repository.ts';
import { chargeRecord, logViews } from '../core/charge-views.ts';
import { BANK_PAYOUTS_PER_PAGE, type BankPayout, type Recipient } from './recipient-repository.ts';

/** Where a bank payout went, as PayChangu's records and `api.payout` webhooks show it. */
export function recipientDetails(recipient: Recipient) {
  return {
    bank_uuid: recipient.bank_uuid,
    bank_name: recipient.bank_name,
    account_name: recipient.account_name,
    account_number: recipient.account_number,
  };
}

/**
 * A payout through the banks list (docs/integrate/api-reference.md#bank-payouts): the record every payout shows, with its
 * recipient and `trace_id` (null: Lipira has none yet). Like PayChangu's, a payout to a bank
 * account shows `mobile` as "0"; one to a wallet shows the wallet's masked number.
 */
export function bankPayoutRecord(payout: Charge, recipient: Recipient) {
  return Object.assign(chargeRecord(payout), {
    mobile: payout.mobile ?? '0',
    trace_id: null,
    recipient_account_details: recipientDetails(recipient),
  });
}

/** Details: the record and its activity log. */
export function bankPayoutDetailsRecord(payout: Charge, recipient: Recipient, logs: LogEntry[]) {
  return Object.assign(bankPayoutRecord(payout, recipient), { logs: logViews(logs) });
}

/** One page (from 1) of the bank payouts list, of `total` payouts in all, with the link to the next. */
export function bankPayoutListPage(page: number, rows: BankPayout[], total: number, publicBaseUrl: string) {
  const totalPages = Math.max(1, Math.ceil(total / BANK_PAYOUTS_PER_PAGE));
  return {
    current_page: page,
    total_pages: totalPages,
    per_page: BANK_PAYOUTS_PER_PAGE,
    next_page_url: page < totalPages ? `${publicBaseUrl}/direct-charge/payouts?page=${page + 1}` : null,
    data: rows.map((row) => bankPayoutRecord(row, row)),
  };
}
