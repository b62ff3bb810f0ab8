import type { PaymentDeps } from '../core/payment-deps.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { reservePayout } from '../ledger/ledger-service.ts';
import { addLog, type LogEntry } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { refreshCharge } from '../core/charge-completion.ts';
import { recordStarted, type Charge } from '../core/charge-repository.ts';
import { existingFor, insertUniqueRecord, type Alongside } from '../core/direct-records.ts';
import { newDirectCharge, type DirectRequest } from '../core/pending-charge.ts';
import type { PayoutRecipient } from '../connectors/provider.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { maskMsisdn, parseMalawiMobile, type MalawiMobile } from '../shared/phone.ts';
import { requestHash } from '../shared/request-hash.ts';
import { payoutBankByUuid, type PayoutBank } from './banks.ts';
import { completePayoutCharge } from './payout-completion.ts';
import {
  movementOf,
  PAYOUT_RECOVERY_MS,
  payoutFeeMinor,
  refusedBeyondBalance,
  refuseChosenOutcomeWhenLive,
} from './payout-reservation.ts';
import {
  findBankPayoutWithLogs,
  findRecipient,
  insertRecipient,
  listBankPayouts,
  type BankPayout,
  type Recipient,
} from './recipient-repository.ts';

/** What `POST /direct-charge/payouts/initialize` carries (docs/integrate/api-reference.md#bank-payouts), after validation. */
export interface BankPayoutRequest {
  payout_method: 'bank_transfer';
  bank_uuid: string;
  amount: number;
  charge_id: string;
  bank_account_name: string;
  bank_account_number: string;
  email?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  /** Kwacha, the one currency the banks list pays out in, whether said or not. */
  currency?: 'MWK' | undefined;
  /** Sandbox only: how the test payout ends (`successful` by default). */
  transaction_status?: 'successful' | 'failed' | undefined;
}

/** A bank's account number: digits only, as the bank writes it. */
const BANK_ACCOUNT_NUMBER = /^\d{5,20}$/;

/** Where a request's money goes: a bank account, or a wallet of the banks list (whose account number is a mobile number). */
export interface Destination {
  bank: PayoutBank;
  /** As the merchant sent it (trimmed): shown back to the merchant. */
  accountNumber: string;
  wallet: MalawiMobile | null;
}

/**
 * A payout through the banks list (docs/integrate/api-reference.md#bank-payouts), with the money rules of every payout: amount
 * and fee reserved from the main balance in the transaction that records it (a 400 and no record
 * when the balance cannot cover them), then handed to the provider. It answers `pending`: the
 * provider's outcome arrives later (sandbox: after SANDBOX_MOBILE_DELAY, as `transaction_status`
 * asked), found by the settler or a details read, and settles the reservation. A wallet from the
 * banks list is paid like a mobile money payout (its record shows the wallet), TNM Mpamba included.
 * `alongside` runs in the transaction that records it (the dashboard's audit entry), only when
 * this request is the one that recorded it.
 */
export async function initializeBankPayout(
  deps: PaymentDeps,
  owner: Principal,
  request: BankPayoutRequest,
  { now = deps.clock.now(), alongside = async () => undefined }: { now?: number; alongside?: Alongside } = {},
): Promise<{ payout: Charge; recipient: Recipient }> {
  refuseChosenOutcomeWhenLive(owner, request.transaction_status);
  const destination = destinationOf(request);
  const hash = hashBankPayoutRequest(request, destination);
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return withRecipient(deps, existing);
  const recipient: Recipient = {
    bank_uuid: destination.bank.uuid,
    bank_name: destination.bank.name,
    account_name: request.bank_account_name,
    account_number: destination.accountNumber,
  };
  const fee = payoutFeeMinor(deps, request.amount * 100);
  const inserted = await refusedBeyondBalance(() =>
    insertUniqueRecord(
      deps,
      { owner, request, hash },
      () => bankPayoutCharge({ owner, request, hash }, destination, fee, now),
      async (trx, charge) => {
        await reservePayout(trx, movementOf(charge), now);
        await insertRecipient(trx, {
          charge_ref: charge.id,
          merchant_id: owner.merchantId,
          mode: owner.mode,
          ...recipient,
          created_at: charge.created_at,
        });
        await addLog(
          trx,
          charge.id,
          `Payout requested to ${describeDestination(destination, charge)} (${request.bank_account_name})`,
          now,
        );
        await alongside(trx, charge);
      },
    ),
  );
  // A concurrent retry that got there first hands it over; this request answers with its record.
  if (!inserted.created) return withRecipient(deps, inserted.charge);
  return {
    payout: await handOver(
      deps,
      inserted.charge,
      destination,
      recipient,
      request.transaction_status ?? 'successful',
      now,
    ),
    recipient,
  };
}

/** Asks the provider to send the payout, and records its answer: what to keep while it is under way, or, if it refused at once, the payout failed and its money released. */
async function handOver(
  deps: PaymentDeps,
  payout: Charge,
  destination: Destination,
  recipient: Recipient,
  requestedOutcome: 'successful' | 'failed',
  now: number,
): Promise<Charge> {
  const to: PayoutRecipient = {
    bankUuid: recipient.bank_uuid,
    bankName: recipient.bank_name,
    accountName: recipient.account_name,
    accountNumber: destination.wallet?.msisdn ?? destination.accountNumber,
  };
  const started = await deps.providerFor(payout.mode).startBankPayout({
    reference: payout.id,
    recipient: to,
    amountMinor: payout.amount_minor,
    currency: payout.currency,
    requestedOutcome,
  });
  if (started.status === 'refused')
    return (await completePayoutCharge(deps, payout, { status: 'failed', reason: started.reason }, now)) ?? payout;
  await recordStarted(
    deps.db,
    payout.id,
    { nextAction: null, providerState: started.providerState, checkAt: started.checkAt },
    now,
  );
  return payout;
}

/**
 * A bank payout by its `charge_id`, with its recipient and logs, refreshed from the provider when
 * its check time has come (so a read after the outcome is due shows it). Any other record with
 * that `charge_id` (a charge, a mobile money payout) is not found here.
 */
export async function bankPayoutDetails(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
): Promise<BankPayout & { logs: LogEntry[] }> {
  const now = deps.clock.now();
  const found = REFERENCE_PATTERN.test(chargeId) ? await findBankPayoutWithLogs(deps.db, owner, chargeId) : undefined;
  if (!found) throw new ApiError('transactionNotFound');
  if ((await refreshCharge(deps, found, now)) === found) return found;
  // It ended just now (or someone else ended it): read it again, logs and all.
  return (await findBankPayoutWithLogs(deps.db, owner, chargeId)) ?? found;
}

/** One page (from 1) of the key's bank payouts, newest first, with how many there are. */
export function bankPayoutPage(
  deps: PaymentDeps,
  owner: Principal,
  page: number,
): Promise<{ rows: BankPayout[]; total: number }> {
  return listBankPayouts(deps.db, owner, page);
}

/** Where a request's money goes, checked as a create checks it (a 400 naming the field when it cannot go there): the dashboard's confirmation step asks it too. */
export function destinationOf(request: Pick<BankPayoutRequest, 'bank_uuid' | 'bank_account_number'>): Destination {
  const bank = payoutBankByUuid(request.bank_uuid);
  if (!bank) throw ApiError.field('bank_uuid', 'The selected bank uuid is invalid.');
  const accountNumber = request.bank_account_number.trim();
  if (!bank.wallet) {
    if (!BANK_ACCOUNT_NUMBER.test(accountNumber))
      throw ApiError.field('bank_account_number', 'The bank account number must be 5 to 20 digits.');
    return { bank, accountNumber, wallet: null };
  }
  const wallet = parseMalawiMobile(accountNumber);
  if (wallet?.operator !== bank.wallet)
    throw ApiError.field('bank_account_number', `The bank account number must be a mobile number on ${bank.name}.`);
  return { bank, accountNumber, wallet };
}

/** Only the fields that say where the money goes and how much: a wallet's number counts in one form, whichever the merchant wrote. */
function hashBankPayoutRequest(request: BankPayoutRequest, destination: Destination): string {
  const { bank_uuid, amount, charge_id, bank_account_name, email, first_name, last_name, transaction_status } = request;
  const account = destination.wallet?.msisdn ?? destination.accountNumber;
  return requestHash({
    kind: 'bank_payout',
    bank_uuid,
    amount,
    charge_id,
    bank_account_name,
    account,
    email,
    first_name,
    last_name,
    transaction_status,
  });
}

function describeDestination(destination: Destination, payout: Charge): string {
  if (destination.wallet) return `${payout.mobile} (${destination.bank.name})`;
  return `${destination.bank.name} account ending ${destination.accountNumber.slice(-4)}`;
}

async function withRecipient(deps: PaymentDeps, payout: Charge): Promise<{ payout: Charge; recipient: Recipient }> {
  const recipient = await findRecipient(deps.db, payout.id);
  // The same charge_id and request hash were a payout through the banks list, recorded with its recipient.
  if (!recipient) throw ApiError.field('charge_id', 'The charge id has already been taken.');
  return { payout, recipient };
}

function bankPayoutCharge(direct: DirectRequest, destination: Destination, fee: number, now: number): Charge {
  const { wallet } = destination;
  return newDirectCharge(
    direct,
    {
      id: ids.chargeRef(),
      kind: 'payout',
      channel: wallet ? 'mobile_money' : 'bank',
      operator: wallet?.operator ?? null,
      mobile: wallet ? maskMsisdn(wallet.msisdn) : null,
      // Should this process die before the provider's answer is recorded, the settler asks it then.
      check_at: now + PAYOUT_RECOVERY_MS,
      fee_minor: fee,
      type: 'API Payout',
    },
    now,
  );
}
