import pg from 'pg';
import type { Cleanup } from '../cleanup.ts';

/** About what autovacuum does on a busy table with PostgreSQL's defaults (a 1 min nap, 10 % changed). */
const ANALYZE_EVERY_MS = 30_000;

/**
 * A PostgreSQL server with autovacuum off never analyzes the soak's tables, and the gateway then
 * warns that lookups slow down as they grow (src/cli/start-warnings.ts): what the soak would
 * measure is that server's configuration, not the gateway. On such a server (this project's
 * machines run one) the soak analyzes its database every 30 s, as autovacuum would, and says so.
 * Returns what it does, for the report; nothing on SQLite or with autovacuum on.
 */
export async function analyzeWhileAutovacuumOff(databaseUrl: string, cleanup: Cleanup): Promise<string | null> {
  if (!databaseUrl.startsWith('postgres')) return null;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  cleanup.add(() => client.end());
  const { rows } = await client.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0]!.autovacuum !== 'off') return null;
  let analyzing = Promise.resolve();
  const timer = setInterval(() => {
    analyzing = analyzing.then(async () => void (await client.query('analyze')));
  }, ANALYZE_EVERY_MS);
  cleanup.add(async () => {
    clearInterval(timer);
    await analyzing;
  });
  return `autovacuum is off on this PostgreSQL server: the soak runs ANALYZE every ${ANALYZE_EVERY_MS / 1000} s in its stead`;
}
