import type { Kysely } from 'kysely';

/**
 * The one-time account a bank transfer charge is paid into (docs/integrate/api-reference.md#bank-transfer-charges), beside its charge
 * row, and who paid it once a transfer arrived. The account number is unique across the gateway:
 * a transfer is matched to its charge by the number alone.
 */
export const bankTransferAccountsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('bank_transfer_accounts')
      .addColumn('charge_ref', 'text', (c) => c.primaryKey().references('charges.id'))
      .addColumn('bank_name', 'text', (c) => c.notNull())
      .addColumn('account_number', 'text', (c) => c.notNull().unique())
      .addColumn('account_name', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('payer_bank', 'text')
      .addColumn('payer_account_number', 'text')
      .addColumn('payer_account_name', 'text')
      .execute();
  },
};
