import { sql, type Kysely } from 'kysely';

/**
 * A webhook signing secret per merchant and mode, where there was one per merchant, so that test
 * and live roll apart; beside it, the secret a roll replaced and until when it still signs (the
 * roll's overlap). Both modes of an existing merchant start with the secret it had.
 */
export const webhookSecretsPerModeMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('webhook_secrets')
      .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_until', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_secrets_pk', ['merchant_id', 'mode'])
      .execute();
    for (const mode of ['test', 'live']) {
      await sql`INSERT INTO webhook_secrets (merchant_id, mode, secret, updated_at)
        SELECT id, ${sql.lit(mode)}, webhook_secret, updated_at FROM merchants`.execute(db);
    }
    await db.schema.alterTable('merchants').dropColumn('webhook_secret').execute();
  },
};
