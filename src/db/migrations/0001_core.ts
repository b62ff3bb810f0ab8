import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

export function coreMigration(dialect: Dialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('merchants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('webhook_url', 'text')
        .addColumn('webhook_secret', 'text', (c) => c.notNull())
        .addColumn('webhooks_enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('receipts_enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fee_bps', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('visible', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('api_keys_merchant')
        .on('api_keys')
        .columns(['merchant_id', 'mode', 'kind'])
        .execute();

      await db.schema
        .createTable('checkout_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('generation', 'text', (c) => c.notNull())
        .addColumn('tx_ref', 'text', (c) => c.notNull())
        .addColumn('reference', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('amount_minor', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('first_name', 'text', (c) => c.notNull())
        .addColumn('last_name', 'text')
        .addColumn('email', 'text')
        .addColumn('callback_url', 'text')
        .addColumn('return_url', 'text')
        .addColumn('title', 'text')
        .addColumn('description', 'text')
        .addColumn('logo', 'text')
        .addColumn('meta', 'text')
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('fee_minor', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('checkout_sessions_tx_ref', ['merchant_id', 'mode', 'tx_ref'])
        .execute();

      await db.schema
        .createTable('logs')
        .addColumn('id', serial, (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('logs_owner').on('logs').columns(['owner_id', 'id']).execute();

      await db.schema
        .createTable('app_state')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
