import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { useMigratedSqlite } from '../helpers/databases.ts';

const sqlite = useMigratedSqlite();

async function pragma(name: string): Promise<unknown> {
  const { rows } = await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(sqlite.database.db);
  return Object.values(rows[0]!)[0];
}

test('SQLite runs in WAL mode with every commit synced to disk (synchronous = FULL)', async () => {
  assert.equal(await pragma('journal_mode'), 'wal');
  assert.equal(await pragma('synchronous'), 2);
  assert.equal(await pragma('foreign_keys'), 1);
});

test('commits copy the WAL back into the database every 10,000 pages, not every 1,000', async () => {
  assert.equal(await pragma('wal_autocheckpoint'), 10_000);
});
