import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/** The double-entry ledger: accounts with a running balance, transactions, and their entries. */
export function ledgerMigration(dialect: Dialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('ledger_accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('balance_minor', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('ledger_accounts_key', ['owner', 'mode', 'currency', 'kind'])
        .execute();

      await db.schema
        .createTable('ledger_transactions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('reference', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ledger_transactions_reference')
        .on('ledger_transactions')
        .columns(['reference', 'kind'])
        .execute();

      await db.schema
        .createTable('ledger_entries')
        .addColumn('id', serial, (c) => c.primaryKey())
        .addColumn('transaction_id', 'text', (c) => c.notNull().references('ledger_transactions.id'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
        .addColumn('amount_minor', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ledger_entries_transaction').on('ledger_entries').column('transaction_id').execute();
      await db.schema.createIndex('ledger_entries_account').on('ledger_entries').column('account_id').execute();

      await db.schema.alterTable('charges').addColumn('request_hash', 'text').execute();
      await db.schema.alterTable('charges').addColumn('type', 'text').execute();
    },
  };
}
