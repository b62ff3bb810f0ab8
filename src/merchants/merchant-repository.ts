import type { Kysely, Selectable, Insertable, Updateable } from 'kysely';
import type { ApiKeysTable, DB, MerchantsTable, WebhookSecretsTable } from '../db/schema.ts';
import type { Mode } from '../shared/ids.ts';
import { prepared } from '../db/prepared.ts';

export type Merchant = Selectable<MerchantsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
type Db = Kysely<DB>;

export async function insertMerchant(db: Db, merchant: Insertable<MerchantsTable>): Promise<void> {
  await db.insertInto('merchants').values(merchant).execute();
}

export type WebhookSecret = Selectable<WebhookSecretsTable>;

export async function insertWebhookSecrets(db: Db, secrets: Insertable<WebhookSecretsTable>[]): Promise<void> {
  await db.insertInto('webhook_secrets').values(secrets).execute();
}

export function findWebhookSecret(db: Db, merchantId: string, mode: Mode): Promise<WebhookSecret | undefined> {
  return db
    .selectFrom('webhook_secrets')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .executeTakeFirst();
}

/**
 * Makes `secret` the mode's webhook secret in one statement; the one it replaces keeps signing
 * until `previousUntil`, or stops at once when that is null. Whatever signed beside the replaced
 * one before (an earlier roll's overlap) stops now. False without such a merchant.
 */
export async function replaceWebhookSecret(
  db: Db,
  { merchantId, mode }: { merchantId: string; mode: Mode },
  secret: string,
  previousUntil: number | null,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_secrets')
    .set((eb) => ({
      secret,
      previous_secret: previousUntil === null ? null : eb.ref('secret'),
      previous_until: previousUntil,
      updated_at: now,
    }))
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertApiKeys(db: Db, keys: Insertable<ApiKeysTable>[]): Promise<void> {
  await db.insertInto('api_keys').values(keys).execute();
}

export function listMerchants(db: Db): Promise<Merchant[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

const merchantById = prepared((db, id: string) => db.selectFrom('merchants').selectAll().where('id', '=', id));

export async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  return (await merchantById(db, id))[0];
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateMerchant(db: Db, id: string, patch: Updateable<MerchantsTable>): Promise<boolean> {
  const result = await db.updateTable('merchants').set(patch).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const keyByHash = prepared((db, tokenHash: string) =>
  db.selectFrom('api_keys').selectAll().where('token_hash', '=', tokenHash),
);

export async function findKeyByHash(db: Db, tokenHash: string): Promise<ApiKey | undefined> {
  return (await keyByHash(db, tokenHash))[0];
}

export function listKeys(db: Db, merchantId: string): Promise<ApiKey[]> {
  return db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').execute();
}

/** Gives every secret key of a merchant's mode that outlives `expiresAt` that expiry instead. */
export async function expireSecretKeys(db: Db, merchantId: string, mode: Mode, expiresAt: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ expires_at: expiresAt })
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('kind', '=', 'secret')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
    .execute();
}

/** The app_state marker of the demo merchant the first start created. */
export const DEMO_MERCHANT_MARKER = 'demo_merchant_created';

/**
 * The demo merchant while it is the only merchant (a fresh install), or null: merchants are
 * never removed, so the one merchant of a gateway whose first start made the demo is the demo.
 */
export async function soleDemoMerchant(db: Db): Promise<Pick<Merchant, 'id' | 'name'> | null> {
  const marker = await db
    .selectFrom('app_state')
    .select('key')
    .where('key', '=', DEMO_MERCHANT_MARKER)
    .executeTakeFirst();
  if (!marker) return null;
  const merchants = await db.selectFrom('merchants').select(['id', 'name']).limit(2).execute();
  return merchants.length === 1 ? merchants[0]! : null;
}

/** Records a one-time marker; true only for the caller that wrote it first. */
export async function claimAppState(db: Db, key: string, value: string): Promise<boolean> {
  const rows = await db
    .insertInto('app_state')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .execute();
  return rows.length === 1;
}
