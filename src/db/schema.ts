import type { Generated } from 'kysely';

/**
 * Table shapes as Kysely sees them. Money is in minor units (bigint), times are epoch
 * milliseconds (bigint), booleans are 0/1 integers and JSON is text, so that one schema
 * means the same on SQLite and PostgreSQL.
 */
export interface MerchantsTable {
  id: string;
  name: string;
  email: string;
  webhook_url: string | null;
  webhook_secret: string;
  webhooks_enabled: number;
  receipts_enabled: number;
  fee_bps: number;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live';
  kind: 'secret' | 'public';
  /** A secret's first characters, or a public key in full: what may be shown again. */
  visible: string;
  token_hash: string;
  expires_at: number | null;
  created_at: number;
}

export interface CheckoutSessionsTable {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live';
  generation: 'current' | 'legacy';
  tx_ref: string;
  reference: string;
  status: 'pending' | 'success' | 'failed';
  amount_minor: number;
  currency: string;
  first_name: string;
  last_name: string | null;
  email: string | null;
  callback_url: string | null;
  return_url: string | null;
  title: string | null;
  description: string | null;
  logo: string | null;
  meta: string | null;
  request_hash: string;
  attempts: number;
  fee_minor: number;
  expires_at: number;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface LogsTable {
  id: Generated<number>;
  owner_id: string;
  type: string;
  message: string;
  created_at: number;
}

export interface AppStateTable {
  key: string;
  value: string;
}

export interface DB {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  checkout_sessions: CheckoutSessionsTable;
  logs: LogsTable;
  app_state: AppStateTable;
}
