import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The dashboard's identity: its users (a merchant's, or the gateway's operators with no
 * merchant), their server-side sessions and one-time set-password links (both stored only as
 * SHA-256 hashes of the tokens people hold), and the audit log of changes to money, secrets and
 * users. An email no longer needs an event or a merchant: a set-password link has neither.
 */
export function usersMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('totp_secret', 'text')
        .addColumn('totp_last_step', 'bigint')
        .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked_until', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_merchant').on('users').column('merchant_id').execute();

      await db.schema
        .createTable('user_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('awaiting_code', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();

      await db.schema
        .createTable('password_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
        .addColumn('user_id', 'text', (c) => c.references('users.id'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('audit_log_merchant')
        .on('audit_log')
        .columns(['merchant_id', 'created_at'])
        .execute();

      await (dialect === 'postgres' ? loosenEmailsOnPostgres(db) : loosenEmailsOnSqlite(db));
    },
  };
}

async function loosenEmailsOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`alter table emails alter column event_id drop not null, alter column merchant_id drop not null`.execute(db);
}

/** SQLite cannot drop NOT NULL from a column: the table is made again as it was, without it, and its rows copied. */
async function loosenEmailsOnSqlite(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('emails_loose')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.references('events.id'))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addUniqueConstraint('emails_once_per_event', ['event_id', 'kind'])
    .execute();
  await sql`insert into emails_loose select id, event_id, merchant_id, kind, recipient, subject, text_body, html_body, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at from emails`.execute(
    db,
  );
  await db.schema.dropTable('emails').execute();
  await db.schema.alterTable('emails_loose').renameTo('emails').execute();
  await db.schema.createIndex('emails_due').on('emails').columns(['status', 'next_attempt_at']).execute();
}
