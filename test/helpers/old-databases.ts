import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { ids } from '../../src/shared/ids.ts';

/**
 * A merchant row as a database before migration 0021 held it, with its one webhook secret, for
 * tests that upgrade such a database (createMerchant writes today's tables). Its id.
 */
export async function insertOldMerchant(db: Kysely<DB>, webhookSecret: string, now: number): Promise<string> {
  const id = ids.merchant();
  await sql`INSERT INTO merchants (id, name, email, webhook_url, webhook_secret, webhooks_enabled, receipts_enabled, fee_bps, created_at, updated_at)
    VALUES (${id}, 'Upgraded', 'u@example.com', NULL, ${webhookSecret}, 1, 1, 300, ${now}, ${now})`.execute(db);
  return id;
}
