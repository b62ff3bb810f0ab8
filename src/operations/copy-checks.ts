import { sql } from 'kysely';
import { openDatabase, type Database } from '../db/database.ts';
import { migrationNames, migrationsAreCurrent } from '../db/migrate.ts';
import { checkLedger } from '../ledger/ledger-service.ts';

/** What checking a copy found: what passed, or what is wrong with it. */
export interface CopyChecks {
  passed: string[];
  problems: string[];
}

/**
 * The checks a copy passes before it counts as a backup, and before a restore puts it in place:
 * it opens as a database, SQLite's integrity check finds nothing (on PostgreSQL, `pg_restore`
 * having restored it whole is that check), every migration this build knows is applied (a gateway
 * of this build would serve it as it is), and the ledger check (`lipira ledger check`) is clean.
 * Each check runs only once those before it passed: a ledger read on a corrupt or older schema
 * would report noise.
 */
export async function checkCopy(url: string): Promise<CopyChecks> {
  const passed: string[] = [];
  let database: Database;
  try {
    database = await openDatabase(url);
    await sql`select 1`.execute(database.db);
  } catch (error) {
    return { passed, problems: [`it does not open as a Lipira database: ${messageOf(error)}`] };
  }
  try {
    if (database.dialect === 'sqlite') {
      const rows = (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db)).rows;
      const findings = rows.map((row) => row.integrity_check);
      if (findings.join() !== 'ok')
        return { passed, problems: findings.map((finding) => `integrity check: ${finding}`) };
      passed.push('integrity check ok');
    }
    if (!(await migrationsAreCurrent(database)))
      return {
        passed,
        problems: [
          `migrations: not every one of this build's ${migrationNames().length} is applied (\`lipira migrate\` with DATABASE_URL set to the copy applies them)`,
        ],
      };
    passed.push(`all ${migrationNames().length} migrations applied`);
    const ledger = await checkLedger(database.db);
    if (ledger.length > 0) return { passed, problems: ledger.map((problem) => `ledger check: ${problem}`) };
    passed.push('ledger check clean');
    return { passed, problems: [] };
  } catch (error) {
    return { passed, problems: [messageOf(error)] };
  } finally {
    await database.close();
  }
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The error a copy that failed its checks is refused with. */
export function refusedCopy(what: string, checks: CopyChecks): Error {
  return new Error([`${what}:`, ...checks.problems.map((problem) => `  ${problem}`)].join('\n'));
}
