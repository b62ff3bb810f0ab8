import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { CALLBACK_ASK_WINDOW_MS } from '../core/provider-asks.ts';

/**
 * What an operator starting `lipira serve` must hear about settings that are allowed but costly:
 * Airtel's callback authentication is optional on its side, so a gateway routing to Airtel without
 * its key starts, but anyone can then post callbacks to it.
 */
export function startWarnings(config: Config): string[] {
  const toAirtel = Object.entries(config.liveRoutes)
    .filter(([, connector]) => connector === 'airtel')
    .map(([channel]) => channel);
  if (toAirtel.length === 0 || config.airtelCallbackSecret !== null) return [];
  return [
    `LIVE_ROUTES sends ${toAirtel.join(', ')} to Airtel Money but AIRTEL_CALLBACK_SECRET is unset, so /callbacks/airtel accepts callbacks nobody signed. ` +
      `Forged callbacks cannot move money (the gateway asks Airtel and records only its answer), but each costs an Airtel status query ` +
      `(at most one per payment every ${CALLBACK_ASK_WINDOW_MS / 1000} s). Turn callback authentication on in the Airtel portal and set AIRTEL_CALLBACK_SECRET to its key.`,
  ];
}

/**
 * What the database says an operator must hear: a PostgreSQL server with autovacuum off never
 * analyzes the tables as they grow, and without statistics the planner took a merchant's list
 * index for a verification by `tx_ref`, reading all of the merchant's sessions each time
 * (measured: 27 ms at 19,000 sessions, and a 100/s soak fell to 60/s within ten minutes).
 */
export async function databaseWarnings(database: Pick<Database, 'db' | 'dialect'>): Promise<string[]> {
  if (database.dialect !== 'postgres') return [];
  const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(database.db);
  if (rows[0]?.autovacuum !== 'off') return [];
  return [
    'autovacuum is off on this PostgreSQL server, so its tables are never analyzed: as they grow, lookups (a verification by tx_ref among them) ' +
      'read more and more rows. Turn autovacuum on (postgresql.conf), or run ANALYZE on this database regularly.',
  ];
}
