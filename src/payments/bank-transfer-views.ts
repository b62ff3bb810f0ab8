import type { LogEntry } from '../logs/log-repository.ts';
import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import type { TransferAccount } from '../core/bank-transfer-repository.ts';
import type { Charge } from '../core/charge-repository.ts';
import { eventTypeOf, logViews } from '../core/charge-views.ts';
import { CHANNEL_NAMES } from '../shared/payment-methods.ts';

/** The account the customer pays into, as initialize answers it: the expiry in unix seconds. */
export function accountDetails(
  account: Pick<TransferAccount, 'bank_name' | 'account_number' | 'account_name' | 'expires_at'>,
) {
  return {
    bank_name: account.bank_name,
    account_number: account.account_number,
    account_name: account.account_name,
    account_expiration_timestamp: Math.floor(account.expires_at / 1000),
  };
}

/**
 * A bank transfer charge as initialize shows it (docs/integrate/api-reference.md#bank-transfer-charges), field for field. Lipira has no
 * trace id of its own yet (null); `mobile` is the masked number the merchant sent, or "0" as
 * PayChangu shows it when there is none.
 */
export function transferRecord(charge: Charge) {
  return {
    charge_id: charge.charge_id,
    ref_id: charge.ref_id,
    trans_id: charge.trans_id,
    currency: charge.currency,
    amount: charge.amount_minor / 100,
    type: charge.type ?? 'Direct API Payment',
    trace_id: null,
    status: charge.status,
    mobile: charge.mobile ?? '0',
    attempts: charge.attempts,
    mode: charge.mode === 'test' ? 'sandbox' : 'live',
    created_at: formatTimestamp(charge.created_at),
    event_type: eventTypeOf(charge),
    transaction_charges: { currency: charge.currency, amount: (charge.fee_minor / 100).toFixed(2) },
  };
}

/** How a bank transfer was paid, as details and its webhook show it: the payer once a transfer arrived (the account number masked). */
export function transferAuthorization(
  charge: Charge,
  account: Pick<TransferAccount, 'payer_bank' | 'payer_account_number' | 'payer_account_name'> | undefined,
) {
  return {
    channel: CHANNEL_NAMES.bank_transfer,
    card_number: null,
    expiry: null,
    brand: null,
    provider: null,
    mobile_number: null,
    payer_bank_uuid: null,
    payer_bank: account?.payer_bank ?? null,
    payer_account_number: account?.payer_account_number ?? null,
    payer_account_name: account?.payer_account_name ?? null,
    completed_at: formatNullableTimestamp(charge.completed_at),
  };
}

/** What initialize answers: the account to pay into, and the pending charge. */
export function initializedTransfer(charge: Charge, account: TransferAccount) {
  return {
    payment_account_details: accountDetails(account),
    transaction: Object.assign(transferRecord(charge), { authorization: { channel: CHANNEL_NAMES.bank_transfer } }),
  };
}

/** Details: the charge with when and how it ended (a failure's reason and code), who paid, its logs, and the account it is paid into. */
export function transferDetails(transfer: Charge & TransferAccount, logs: LogEntry[]) {
  const transaction = Object.assign(transferRecord(transfer), {
    completed_at: formatNullableTimestamp(transfer.completed_at),
    failure_reason: transfer.failure_reason,
    failure_code: transfer.failure_code,
    authorization: transferAuthorization(transfer, transfer),
    logs: logViews(logs),
  });
  return { transaction, payment_account_details: accountDetails(transfer) };
}
