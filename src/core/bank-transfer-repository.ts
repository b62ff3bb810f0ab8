import type { Insertable, Kysely, Selectable } from 'kysely';
import { prepared } from '../db/prepared.ts';
import type { BankTransferAccountsTable, DB } from '../db/schema.ts';
import { logsOf, withLogsRead, type LogEntry } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Charge } from './charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';
import type { ChargeRef } from '../shared/ids.ts';

type Db = Kysely<DB>;

/** `Lipira / Mango Shop`: whom the customer sees they are paying in their bank's app. */
export const accountNameFor = (merchantName: string) => `Lipira / ${merchantName}`.slice(0, 100);

/** What a bank transfer charge shows of its account and payer. */
export type TransferAccount = Omit<Selectable<BankTransferAccountsTable>, 'charge_ref'>;

/** A bank transfer charge with its account, as one row. */
export type BankTransfer = Charge & TransferAccount;

const ACCOUNT_COLUMNS = [
  'bank_transfer_accounts.bank_name',
  'bank_transfer_accounts.account_number',
  'bank_transfer_accounts.account_name',
  'bank_transfer_accounts.expires_at',
  'bank_transfer_accounts.payer_bank',
  'bank_transfer_accounts.payer_account_number',
  'bank_transfer_accounts.payer_account_name',
] as const;

/** False when the account number is already another charge's (the provider is then asked for another). */
export async function insertTransferAccount(trx: Db, account: Insertable<BankTransferAccountsTable>): Promise<boolean> {
  const inserted = await trx
    .insertInto('bank_transfer_accounts')
    .values(account)
    .onConflict((oc) => oc.doNothing())
    .returning('charge_ref')
    .executeTakeFirst();
  return inserted !== undefined;
}

const accountByCharge = prepared((db, chargeRef: ChargeRef) =>
  db.selectFrom('bank_transfer_accounts').select(ACCOUNT_COLUMNS).where('charge_ref', '=', chargeRef),
);

/** The account of a bank transfer charge; none for any other charge. */
export async function findTransferAccount(db: Db, chargeRef: ChargeRef): Promise<TransferAccount | undefined> {
  return (await accountByCharge(db, chargeRef))[0];
}

/** Records who paid (when a successful outcome says), in the transaction that ends the charge; the account as it now is. */
export async function recordPayer(
  trx: Db,
  chargeRef: ChargeRef,
  outcome: Outcome,
): Promise<TransferAccount | undefined> {
  const payer = outcome.status === 'success' ? outcome.payer : undefined;
  if (payer) {
    await trx
      .updateTable('bank_transfer_accounts')
      .set({ payer_bank: payer.bank, payer_account_number: payer.accountNumber, payer_account_name: payer.accountName })
      .where('charge_ref', '=', chargeRef)
      .execute();
  }
  return findTransferAccount(trx, chargeRef);
}

const transferWithLogs = prepared((db, merchantId: string, mode: Principal['mode'], chargeId: string) =>
  db
    .selectFrom('charges')
    .innerJoin('bank_transfer_accounts', 'bank_transfer_accounts.charge_ref', 'charges.id')
    .selectAll('charges')
    .select(ACCOUNT_COLUMNS)
    .select(logsOf(db, 'charges.id').as('logs'))
    .where('charges.merchant_id', '=', merchantId)
    .where('charges.mode', '=', mode)
    .where('charges.charge_id', '=', chargeId),
);

/** A merchant's direct bank transfer charge by its `charge_id`, in the key's mode, with its account and logs in one statement. */
export async function findBankTransferWithLogs(
  db: Db,
  owner: Principal,
  chargeId: string,
): Promise<(BankTransfer & { logs: LogEntry[] }) | undefined> {
  const row = (await transferWithLogs(db, owner.merchantId, owner.mode, chargeId))[0];
  return row && withLogsRead(row);
}
