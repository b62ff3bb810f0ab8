import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ids, type Mode } from '../shared/ids.ts';
import { isHttpUrl } from '../shared/urls.ts';
import { recordAudit } from '../users/audit.ts';
import { hashKey, hashesMatch, keyKindOf, visiblePart } from './api-keys.ts';
import * as repo from './merchant-repository.ts';

type Db = Kysely<DB>;

/** Who a request acts for: the merchant behind the key, and the mode the key selects. */
export interface Principal {
  merchantId: string;
  mode: Mode;
  /** Set when the key was a public one: it may only create checkout sessions, and is limited apart from the merchant's secret keys. */
  publicKey?: true;
}

export interface NewMerchant {
  name: string;
  email: string;
  webhookUrl: string | null;
  feeBasisPoints: number;
  /** The dashboard user creating it: its `merchant.create` audit entry is then written in the same transaction. */
  createdBy?: string;
}

/**
 * Everything secret about a new merchant: shown once, then only hashes remain (webhook secret
 * aside). Both modes start with the one webhook secret; each mode's rolls apart from then on.
 */
export interface MerchantCredentials {
  id: string;
  name: string;
  email: string;
  test_secret_key: string;
  live_secret_key: string;
  test_public_key: string;
  live_public_key: string;
  webhook_secret: string;
}

const MODES: Mode[] = ['test', 'live'];

export async function createMerchant(db: Db, input: NewMerchant, now: number): Promise<MerchantCredentials> {
  const id = ids.merchant();
  const secrets = { test: ids.secretKey('test'), live: ids.secretKey('live') };
  const publics = { test: ids.publicKey('test'), live: ids.publicKey('live') };
  const webhookSecret = ids.webhookSecret();
  await db.transaction().execute(async (trx) => {
    await repo.insertMerchant(trx, {
      id,
      name: input.name,
      email: input.email,
      webhook_url: input.webhookUrl,
      webhooks_enabled: 1,
      receipts_enabled: 1,
      fee_bps: input.feeBasisPoints,
      created_at: now,
      updated_at: now,
    });
    await repo.insertWebhookSecrets(
      trx,
      MODES.map((mode) => ({
        merchant_id: id,
        mode,
        secret: webhookSecret,
        previous_secret: null,
        previous_until: null,
        updated_at: now,
      })),
    );
    await repo.insertApiKeys(
      trx,
      MODES.flatMap((mode) => [
        secretKeyRow(id, mode, secrets[mode], now),
        {
          id: ids.apiKey(),
          merchant_id: id,
          mode,
          kind: 'public' as const,
          visible: publics[mode],
          token_hash: hashKey(publics[mode]),
          expires_at: null,
          created_at: now,
        },
      ]),
    );
    if (input.createdBy !== undefined) {
      await recordAudit(
        trx,
        {
          merchantId: id,
          userId: input.createdBy,
          action: 'merchant.create',
          subject: id,
          detail: { name: input.name, email: input.email, fee_percent: input.feeBasisPoints / 100 },
        },
        now,
      );
    }
  });
  return {
    id,
    name: input.name,
    email: input.email,
    test_secret_key: secrets.test,
    live_secret_key: secrets.live,
    test_public_key: publics.test,
    live_public_key: publics.live,
    webhook_secret: webhookSecret,
  };
}

function secretKeyRow(merchantId: string, mode: Mode, token: string, now: number) {
  return {
    id: ids.apiKey(),
    merchant_id: merchantId,
    mode,
    kind: 'secret' as const,
    visible: visiblePart(token),
    token_hash: hashKey(token),
    expires_at: null,
    created_at: now,
  };
}

export interface RolledKey {
  merchant_id: string;
  mode: Mode;
  secret_key: string;
  old_keys_expire_at: number;
}

/**
 * Issues a new secret key at once; the merchant's older keys of that mode stop at `now + expireOldInMs`.
 * The roll is written to the audit log in the same transaction, as done by `actorId` (null: the command line).
 */
export async function rollSecretKey(
  db: Db,
  { merchantId, mode }: { merchantId: string; mode: Mode },
  { expireOldInMs, now, actorId = null }: { expireOldInMs: number; now: number; actorId?: string | null },
): Promise<RolledKey | null> {
  const token = ids.secretKey(mode);
  const expiresAt = now + expireOldInMs;
  const rolled = await db.transaction().execute(async (trx) => {
    if (!(await repo.findMerchant(trx, merchantId))) return false;
    await repo.expireSecretKeys(trx, merchantId, mode, expiresAt);
    const key = secretKeyRow(merchantId, mode, token, now);
    await repo.insertApiKeys(trx, [key]);
    await recordAudit(
      trx,
      {
        merchantId,
        userId: actorId,
        action: 'key.roll',
        subject: key.id,
        detail: { mode, visible: key.visible, old_keys_expire_at: new Date(expiresAt).toISOString() },
      },
      now,
    );
    return true;
  });
  return rolled ? { merchant_id: merchantId, mode, secret_key: token, old_keys_expire_at: expiresAt } : null;
}

/** How long a looked-up key is trusted without asking the database again (bounds how late a roll's expiry can bite). */
const KEY_CACHE_TTL_MS = 1_000;
const KEY_CACHE_MAX = 10_000;
/** How long a well-formed key the database did not know is refused without asking it again. */
const UNKNOWN_KEY_TTL_MS = 5_000;
const UNKNOWN_KEY_CACHE_MAX = 10_000;

interface CachedKey {
  principal: Principal;
  expiresAt: number | null;
  fetchedAt: number;
}

/** Per database: tests run several gateways, each over its own database, in one process. */
const keyCaches = new WeakMap<Db, Map<string, CachedKey>>();
/** Hashes of keys the database did not know, with when it said so; apart, so that made-up keys never push out real ones. */
const unknownKeyCaches = new WeakMap<Db, Map<string, number>>();

/**
 * The principal for a key (secret, or public) as far as this process remembers it: null when the key
 * is malformed, or was found unknown within the last few seconds; the principal or
 * null when it was looked up within the last second; undefined when the database must be asked
 * (`lookUpSecretKey`). Known keys are remembered for a second, with their expiry, so a busy
 * merchant costs one key lookup per second rather than one per request, and most requests are
 * answered without a promise. Unknown keys are remembered for a few seconds, so that one sent
 * again and again costs no lookup.
 */
export function rememberedPrincipal(db: Db, token: string, now: number): Principal | null | undefined {
  if (!keyKindOf(token)) return null;
  const hash = hashKey(token);
  const cached = keyCaches.get(db)?.get(hash);
  if (cached && now - cached.fetchedAt <= KEY_CACHE_TTL_MS) return principalUnlessExpired(cached, now);
  const unknownAt = unknownKeyCaches.get(db)?.get(hash);
  if (unknownAt !== undefined && now - unknownAt <= UNKNOWN_KEY_TTL_MS) return null;
  return undefined;
}

/** Whether this process has found the key valid before (however long ago): a merchant's, not a guess. */
export function wasValidKey(db: Db, token: string): boolean {
  return keyCaches.get(db)?.has(hashKey(token)) ?? false;
}

/**
 * The principal for a well-formed key, from the database; null when it is unknown, expired, or
 * stored as the other kind than its shape claims. Remembered either way. Which routes a kind may
 * call is the authentication hook's business (src/http/auth.ts).
 */
export async function lookUpKey(db: Db, token: string, now: number): Promise<Principal | null> {
  const hash = hashKey(token);
  const key = await repo.findKeyByHash(db, hash);
  const kind = keyKindOf(token);
  if (!key || kind === null || key.kind !== kind || !hashesMatch(key.token_hash, hash)) {
    remember(unknownKeyCaches, db, UNKNOWN_KEY_CACHE_MAX, hash, now);
    return null;
  }
  const principal: Principal =
    kind === 'public'
      ? { merchantId: key.merchant_id, mode: key.mode, publicKey: true }
      : { merchantId: key.merchant_id, mode: key.mode };
  const cached: CachedKey = { principal, expiresAt: key.expires_at, fetchedAt: now };
  remember(keyCaches, db, KEY_CACHE_MAX, hash, cached);
  return principalUnlessExpired(cached, now);
}

/** Sets `hash` in the database's cache, last in line; the oldest entry goes when the cache is full. */
function remember<T>(caches: WeakMap<Db, Map<string, T>>, db: Db, max: number, hash: string, value: T): void {
  const cache = caches.get(db) ?? caches.set(db, new Map()).get(db)!;
  cache.delete(hash);
  if (cache.size >= max) cache.delete(cache.keys().next().value!);
  cache.set(hash, value);
}

function principalUnlessExpired(cached: CachedKey, now: number): Principal | null {
  return cached.expiresAt !== null && cached.expiresAt <= now ? null : cached.principal;
}

export interface MerchantSettings {
  name?: string;
  webhookUrl?: string | null;
  receiptsEnabled?: boolean;
  feeBasisPoints?: number;
  /** An https URL, or null for none (see `isBrandLogoUrl`). */
  logoUrl?: string | null;
  /** `#rrggbb`, or null for none (see `isBrandColor`). */
  brandColor?: string | null;
}

/** A logo the checkout page and receipts may load: https only, so a secure page never pulls one over plain http. */
export const isBrandLogoUrl = (text: string): boolean => text.startsWith('https://') && isHttpUrl(text);
export const isBrandColor = (text: string): boolean => /^#[0-9a-f]{6}$/i.test(text);

/** Changes what is given; `db` may be the caller's transaction, so that the change and its audit entry go together. */
export async function updateMerchantSettings(
  db: Db,
  merchantId: string,
  settings: MerchantSettings,
  now: number,
): Promise<boolean> {
  return repo.updateMerchant(db, merchantId, {
    ...(settings.name !== undefined && { name: settings.name }),
    ...(settings.webhookUrl !== undefined && { webhook_url: settings.webhookUrl }),
    ...(settings.receiptsEnabled !== undefined && { receipts_enabled: settings.receiptsEnabled ? 1 : 0 }),
    ...(settings.feeBasisPoints !== undefined && { fee_bps: settings.feeBasisPoints }),
    ...(settings.logoUrl !== undefined && { logo_url: settings.logoUrl }),
    ...(settings.brandColor !== undefined && { brand_color: settings.brandColor?.toLowerCase() ?? null }),
    updated_at: now,
  });
}

/** How long a rolled webhook secret keeps signing beside the new one when the roll does not say. */
export const DEFAULT_WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;

export interface RolledWebhookSecret {
  mode: Mode;
  secret: string;
  /** Until when the secret it replaced signs beside it; null when it stopped at once. */
  previous_until: number | null;
}

/**
 * Gives one mode of the merchant a new webhook signing secret, in effect for every delivery of
 * that mode sent from now on (a retried one too); the other mode keeps its own. For `overlapMs`
 * (24 hours unless said, 0 for none) the secret it replaces signs beside it, so a receiver may
 * switch at any time within it (docs/integrate/api-reference.md#webhook-signatures). `db` may be
 * the caller's transaction. Null without such a merchant.
 */
export async function rollWebhookSecret(
  db: Db,
  owner: { merchantId: string; mode: Mode },
  { overlapMs = DEFAULT_WEBHOOK_SECRET_OVERLAP_MS, now }: { overlapMs?: number; now: number },
): Promise<RolledWebhookSecret | null> {
  const secret = ids.webhookSecret();
  const previousUntil = overlapMs > 0 ? now + overlapMs : null;
  if (!(await repo.replaceWebhookSecret(db, owner, secret, previousUntil, now))) return null;
  return { mode: owner.mode, secret, previous_until: previousUntil };
}

/** Until when a mode's previous webhook secret still signs beside its current one, or null when none does at `now`. */
export async function webhookSecretOverlapEnd(
  db: Db,
  owner: { merchantId: string; mode: Mode },
  now: number,
): Promise<number | null> {
  const row = await repo.findWebhookSecret(db, owner.merchantId, owner.mode);
  return row && row.previous_secret !== null && row.previous_until !== null && row.previous_until > now
    ? row.previous_until
    : null;
}

export { listMerchants, listKeys, findMerchant } from './merchant-repository.ts';
