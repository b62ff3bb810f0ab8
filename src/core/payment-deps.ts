import type { Config } from '../config.ts';
import { liveConnectors } from '../connectors/live-connectors.ts';
import { providersFor } from '../connectors/providers.ts';
import type { Database } from '../db/database.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import type { Kysely } from 'kysely';
import type { Connector } from '../connectors/connector.ts';
import type { ProviderFor } from '../connectors/provider.ts';

export interface PaymentDeps {
  db: Kysely<DB>;
  /**
   * Where the payment stories' writes commit: on SQLite grouped with the concurrent ones (one
   * commit, one wait for the disk, and a turn of the event loop between groups); the work may
   * run more than once and must write only through the handle it is given (see `Transact`).
   */
  transact: Transact;
  providerFor: ProviderFor;
  /** The live connectors by name, for their callbacks (the same instances the live provider asks). */
  liveConnectors: ReadonlyMap<string, Connector>;
  /** The failed attempt that ends a session (contract §7: the 3rd by default). */
  maxFailedAttempts: number;
  payoutFeeBasisPoints: number;
  /** The gateway's `TIMEZONE`: receipts are written when a payment succeeds, with their times in it. */
  timeZone: string;
}

/**
 * How long a charge recorded before its provider was asked (or a card code on its way to the
 * issuer) may go without an answer being recorded before the settler asks the provider about it:
 * only a crash in between leaves one that long.
 */
export const ANSWER_RECOVERY_MS = 60_000;

/** Everything the payment services need, from the config. */
export function paymentDeps(config: Config, { db, transact }: Pick<Database, 'db' | 'transact'>): PaymentDeps {
  const connectors = liveConnectors(config);
  return {
    db,
    transact,
    providerFor: providersFor(config, connectors.routes),
    liveConnectors: connectors.byName,
    maxFailedAttempts: config.checkoutMaxFailedAttempts,
    payoutFeeBasisPoints: config.payoutFeeBasisPoints,
    timeZone: config.timeZone,
  };
}
