import type { PaymentDeps } from '../core/payment-deps.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { addLog, type LogEntry } from '../logs/log-repository.ts';
import { findMerchant } from '../merchants/merchant-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { ids, type ChargeRef } from '../shared/ids.ts';
import { maskMsisdn, parseMalawiMobile } from '../shared/phone.ts';
import { requestHash } from '../shared/request-hash.ts';
import { transferExpiresAt } from '../core/bank-transfer-expiry.ts';
import {
  accountNameFor,
  findBankTransferWithLogs,
  findTransferAccount,
  insertTransferAccount,
  type BankTransfer,
  type TransferAccount,
} from '../core/bank-transfer-repository.ts';
import { completeCharge, refreshCharge } from '../core/charge-completion.ts';
import type { Charge } from '../core/charge-repository.ts';
import { newDirectCharge } from '../core/pending-charge.ts';
import { existingFor, insertUniqueRecord } from '../core/direct-records.ts';
import type { BankTransferStart, Outcome } from '../connectors/provider.ts';
import { SANDBOX_PAYER } from '../connectors/sandbox/sandbox-provider.ts';

/** What `POST /direct-charge/payments/initialize` carries (docs/integrate/api-reference.md#bank-transfer-charges), after validation. */
export interface BankTransferRequest {
  payment_method: string;
  amount: number;
  currency: string;
  charge_id: string;
  email?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  mobile?: string | undefined;
  /** Sent by SDKs (true by default in one); every account Lipira opens is one-time, so it changes nothing. */
  create_permanent_account?: unknown;
}

export const BANK_TRANSFER_METHOD = 'mobile_bank_transfer';

/** What details' `transaction_status` settles a pending test charge to. */
export type TransferTestOutcome = 'successful' | 'success' | 'failed' | 'pending';

/** The account number the provider gave is already another charge's: the provider is asked for another. */
class AccountNumberTaken extends Error {}

/**
 * A bank transfer charge (docs/integrate/api-reference.md#bank-transfer-charges): a one-time account is opened for it, and the charge
 * waits, pending, for the customer's transfer of the exact amount (found by the settler or a
 * details read once the provider says one arrived), or for the account to expire after an hour.
 * Opening an account moves no money, so it is asked for before the charge is recorded, as for a
 * mobile money charge; a retry of the same request answers the same charge and account.
 */
export async function initializeBankTransfer(
  deps: PaymentDeps,
  owner: Principal,
  request: BankTransferRequest,
): Promise<{ charge: Charge; account: TransferAccount }> {
  const now = deps.clock.now();
  if (request.payment_method !== BANK_TRANSFER_METHOD) {
    throw ApiError.field(
      'payment_method',
      `The selected payment method is invalid: use ${BANK_TRANSFER_METHOD} (a one-time account to pay into by bank transfer).`,
    );
  }
  if (request.currency !== 'MWK')
    throw ApiError.field(
      'currency',
      'The currency must be MWK: bank transfers to a one-time account are taken in MWK only.',
    );
  const mobile = request.mobile === undefined ? null : parseMalawiMobile(request.mobile);
  const hash = requestHash({
    kind: 'bank_transfer',
    amount: request.amount,
    charge_id: request.charge_id,
    email: request.email,
    first_name: request.first_name,
    last_name: request.last_name,
    mobile: mobile?.msisdn ?? request.mobile,
  });
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return withAccount(deps, existing);
  const merchant = await findMerchant(deps.db, owner.merchantId);
  const id = ids.chargeRef();
  for (;;) {
    const opened = await openAccount(
      deps,
      owner,
      id,
      request.amount * 100,
      accountNameFor(merchant?.name ?? 'Merchant'),
      now,
    );
    const account: TransferAccount = {
      ...opened,
      payer_bank: null,
      payer_account_number: null,
      payer_account_name: null,
    };
    const make = () =>
      transferCharge(
        {
          id,
          owner,
          request,
          hash,
          mobile: mobile ? maskMsisdn(mobile.msisdn) : null,
          providerState: opened.providerState,
          checkAt: opened.checkAt,
        },
        now,
      );
    try {
      const { charge, created } = await insertUniqueRecord(
        deps,
        { owner, request, hash },
        make,
        async (trx, charge) => {
          if (!(await insertTransferAccount(trx, { charge_ref: charge.id, ...accountRow(account) })))
            throw new AccountNumberTaken();
          await addLog(
            trx,
            charge.id,
            `Bank transfer requested: account ${account.account_number} at ${account.bank_name} opened until ${new Date(account.expires_at).toISOString()}`,
            now,
          );
        },
      );
      return created ? { charge, account } : withAccount(deps, charge);
    } catch (error) {
      if (!(error instanceof AccountNumberTaken)) throw error;
    }
  }
}

const accountRow = ({ bank_name, account_number, account_name, expires_at }: TransferAccount) => ({
  bank_name,
  account_number,
  account_name,
  expires_at,
});

/** Asks the provider for a one-time account; a refusal is the customer's or merchant's 400. */
async function openAccount(
  deps: PaymentDeps,
  owner: Principal,
  reference: string,
  amountMinor: number,
  accountName: string,
  now: number,
) {
  const expiresAt = transferExpiresAt({ created_at: now });
  const started: BankTransferStart = await deps
    .providerFor(owner.mode)
    .startBankTransfer({ reference, amountMinor, currency: 'MWK', accountName, expiresAt });
  if (started.status === 'refused') throw ApiError.field('payment_method', started.reason);
  // Asked again no later than the expiry, so that the settler ends an account nobody paid into.
  return {
    bank_name: started.account.bankName,
    account_number: started.account.accountNumber,
    account_name: accountName,
    expires_at: expiresAt,
    providerState: started.providerState,
    checkAt: Math.min(started.checkAt, expiresAt),
  };
}

async function withAccount(deps: PaymentDeps, charge: Charge): Promise<{ charge: Charge; account: TransferAccount }> {
  const account = await findTransferAccount(deps.db, charge.id);
  // The same charge_id and request hash were a bank transfer, recorded with its account.
  if (!account) throw ApiError.field('charge_id', 'The charge id has already been taken.');
  return { charge, account };
}

const SETTLED: Record<'success' | 'failed', Outcome> = {
  success: { status: 'success', transId: null, payer: SANDBOX_PAYER },
  failed: { status: 'failed', reason: 'Settled as failed in test mode (transaction_status=failed).' },
};

/**
 * A bank transfer charge by its `charge_id`, with its account and logs, refreshed from the
 * provider when its check time has come. With a test key, `transaction_status` settles a pending
 * one as a transfer (or its failure) would, ledger and webhook included; a live key may not use it.
 * Any other record with that `charge_id` is not found here.
 */
export async function bankTransferDetails(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
  transactionStatus: TransferTestOutcome | undefined,
): Promise<BankTransfer & { logs: LogEntry[] }> {
  const now = deps.clock.now();
  if (transactionStatus !== undefined && owner.mode === 'live') {
    throw ApiError.field('transaction_status', 'The transaction status can only be used with a test key.');
  }
  const found = REFERENCE_PATTERN.test(chargeId) ? await findBankTransferWithLogs(deps.db, owner, chargeId) : undefined;
  if (!found) throw new ApiError('transactionNotFound');
  const settle =
    transactionStatus === undefined || transactionStatus === 'pending' || found.status !== 'pending'
      ? null
      : SETTLED[transactionStatus === 'failed' ? 'failed' : 'success'];
  const current = settle ? await completeCharge(deps, found, settle, now) : await refreshCharge(deps, found, now);
  if (current === found) return found;
  // It ended just now (or someone else ended it): read it again, logs and all.
  return (await findBankTransferWithLogs(deps.db, owner, chargeId)) ?? found;
}

interface NewTransfer {
  id: ChargeRef;
  owner: Principal;
  request: BankTransferRequest;
  hash: string;
  /** The merchant's `mobile` for the customer, masked, when it is a Malawian number. */
  mobile: string | null;
  providerState: string;
  checkAt: number;
}

/** The charge row, made afresh on each insert try (its `ref_id` may be what conflicted). */
function transferCharge(transfer: NewTransfer, now: number): Charge {
  return newDirectCharge(
    transfer,
    {
      id: transfer.id,
      kind: 'payment',
      channel: 'bank_transfer',
      mobile: transfer.mobile,
      next_action: 'approve',
      provider_state: transfer.providerState,
      check_at: transfer.checkAt,
      type: 'Direct API Payment',
    },
    now,
  );
}
