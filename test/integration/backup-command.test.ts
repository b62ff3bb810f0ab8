import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { takeRestoreLock } from '../../src/operations/gateway-lock.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { dropKeptAside } from '../helpers/kept-aside.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { startServe } from '../helpers/serve-process.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/**
 * `lipira backup` and `lipira restore` (issue 34) as an operator runs them, against real `lipira
 * serve` processes: a backup taken while the gateway serves, checked; a restore refused while a
 * gateway uses the database, refused for a backup that fails its checks, and otherwise putting
 * the backup in place with what it replaced kept aside.
 */

/** A database with one merchant, the test connection closed again: a restore needs the database to itself. */
async function databaseWithMerchant(t: Parameters<typeof useCleanup>[0], kind: 'sqlite' | 'postgres') {
  const cleanup = useCleanup(t);
  const testDb = freshDatabase(kind);
  cleanup(() => testDb.drop());
  const database = await openMigratedDatabase(testDb.url);
  const merchant = await createMerchant(
    database.db,
    { name: 'Backup Shop', email: 'owner@backup.example', webhookUrl: null, feeBasisPoints: 300 },
    Date.now(),
  );
  await database.close();
  const folder = temporaryFolder('lipira-backups-');
  cleanup(async () => folder.remove());
  return { cleanup, testDb, key: merchant.test_secret_key, folder: folder.dir, env: { DATABASE_URL: testDb.url } };
}

async function createPayments(url: string, key: string, count: number): Promise<string[]> {
  const refs: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = currentBody();
    const created = await call(url, '/payment', { key, body });
    assert.equal(created.status, 201, created.text);
    refs.push(String(body.tx_ref));
  }
  return refs;
}

for (const kind of DATABASE_KINDS) {
  describe(`lipira backup and restore on ${kind}`, () => {
    test(
      'a backup taken while the gateway serves is restored once it has stopped, the replaced database kept aside',
      { timeout: 120_000 },
      async (t) => {
        const { cleanup, testDb, key, folder, env } = await databaseWithMerchant(t, kind);
        cleanup(() => dropKeptAside(testDb));
        const file = path.join(folder, 'lipira.backup');
        const gateway = await startServe(env);
        cleanup(() => gateway.dispose());
        const before = await createPayments(gateway.url, key, 5);

        const backup = await lipira(['backup', file], env);
        assert.equal(backup.code, 0, backup.stderr);
        assert.match(backup.stdout, /Checked: .*all \d+ migrations applied; ledger check clean\./);
        assert.ok(fs.statSync(file).size > 0);
        const again = await lipira(['backup', file], env);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /already exists: a backup never overwrites a file/);

        const whileServing = await lipira(['restore', file, '--replace'], env);
        assert.equal(whileServing.code, 1, whileServing.stdout);
        assert.match(whileServing.stderr, /a gateway is using .*: stop (it|every gateway) first/);
        const after = await createPayments(gateway.url, key, 2);
        assert.equal(await gateway.stop(), 0);

        const withoutReplace = await lipira(['restore', file], env);
        assert.equal(withoutReplace.code, 1);
        assert.match(withoutReplace.stderr, /already holds data: pass --replace/);
        const restored = await lipira(['restore', file, '--replace'], env);
        assert.equal(restored.code, 0, restored.stderr);
        assert.match(restored.stdout, /Checked first: .*ledger check clean\./);
        const aside = /kept as (\S+)\.$/m.exec(restored.stdout)?.[1];
        assert.ok(aside, restored.stdout);
        if (kind === 'sqlite') assert.ok(fs.statSync(aside).size > 0, 'the replaced file is kept');

        const again2 = await startServe(env);
        cleanup(() => again2.dispose());
        for (const ref of before) assert.equal((await call(again2.url, `/verify-payment/${ref}`, { key })).status, 200);
        for (const ref of after) assert.equal((await call(again2.url, `/verify-payment/${ref}`, { key })).status, 404);
        await again2.stop();
        // What the replaced database held is still there: restoring it back brings the later payments.
        if (kind === 'sqlite') {
          const back = await lipira(['restore', aside, '--replace'], env);
          assert.equal(back.code, 0, back.stderr);
          const third = await startServe(env);
          cleanup(() => third.dispose());
          for (const ref of after) assert.equal((await call(third.url, `/verify-payment/${ref}`, { key })).status, 200);
          await third.stop();
        }
      },
    );

    test('a file that is not a good backup is refused and nothing is replaced', { timeout: 60_000 }, async (t) => {
      const { folder, env } = await databaseWithMerchant(t, kind);
      const garbage = path.join(folder, 'garbage.backup');
      fs.writeFileSync(garbage, 'not a database at all\n'.repeat(100));
      const refused = await lipira(['restore', garbage, '--replace'], env);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        kind === 'sqlite' ? /failed its checks: nothing was restored:\n {2}it does not open/ : /pg_restore failed/,
      );
      const missing = await lipira(['restore', path.join(folder, 'none.backup')], env);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /there is no backup at/);
      const usage = await lipira(['backup'], env);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /usage: lipira backup FILE/);
    });

    test('a database whose ledger does not balance gives no backup, and a dump of it is not restored', async (t) => {
      const { folder, env, testDb } = await databaseWithMerchant(t, kind);
      const database = await openDatabase(testDb.url);
      await sql`insert into ledger_accounts (id, owner, mode, currency, kind, balance_minor, created_at, updated_at)
        values ('acc_tampered', 'platform', 'test', 'MWK', 'main', 500, 0, 0)`.execute(database.db);
      await database.close();
      const file = path.join(folder, 'unbalanced.backup');
      const refused = await lipira(['backup', file], env);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /failed its checks and was not kept:\n {2}ledger check: account acc_tampered has balance 500/,
      );
      assert.equal(fs.existsSync(file), false);
      assert.deepEqual(fs.readdirSync(folder), [], 'no partial copy is left');
      if (kind !== 'postgres') return;
      // Dumped by hand, past lipira backup's checks: the restore checks it again, and replaces nothing.
      const dump = spawnSync('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${testDb.url}`]);
      assert.equal(dump.status, 0, String(dump.stderr));
      const notRestored = await lipira(['restore', file, '--replace'], env);
      assert.equal(notRestored.code, 1);
      assert.match(
        notRestored.stderr,
        /failed its checks: nothing was restored:\n {2}ledger check: account acc_tampered/,
      );
      const after = await openDatabase(testDb.url);
      const kept = await sql<{ id: string }>`select id from ledger_accounts where id = 'acc_tampered'`.execute(
        after.db,
      );
      await after.close();
      assert.equal(kept.rows.length, 1, 'the database is the one it was');
    });
  });
}

describe('lipira backup and restore on sqlite: the checks and the lock', () => {
  test('a backup whose ledger does not balance is refused before it replaces anything', async (t) => {
    const { folder, env, testDb } = await databaseWithMerchant(t, 'sqlite');
    const file = path.join(folder, 'tampered.backup');
    assert.equal((await lipira(['backup', file], env)).code, 0);
    const tampered = new BetterSqlite3(file);
    // Money on an account that no entry put there: what the ledger check exists to catch.
    tampered
      .prepare(
        "insert into ledger_accounts (id, owner, mode, currency, kind, balance_minor, created_at, updated_at) values ('acc_tampered', 'platform', 'test', 'MWK', 'main', 500, 0, 0)",
      )
      .run();
    tampered.close();
    const before = fs.readFileSync(testDb.url.slice('sqlite:'.length));
    const refused = await lipira(['restore', file, '--replace'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /failed its checks: nothing was restored:\n {2}ledger check: account \S+ has balance/);
    assert.deepEqual(fs.readFileSync(testDb.url.slice('sqlite:'.length)), before, 'the database is untouched');
  });

  test('a truncated backup fails the integrity check', async (t) => {
    const { folder, env } = await databaseWithMerchant(t, 'sqlite');
    const file = path.join(folder, 'cut.backup');
    assert.equal((await lipira(['backup', file], env)).code, 0);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const refused = await lipira(['restore', file, '--replace'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /failed its checks: nothing was restored:\n {2}(integrity check|it does not open)/);
  });

  test('a gateway does not start on a database a restore holds', async (t) => {
    const { cleanup, testDb, env } = await databaseWithMerchant(t, 'sqlite');
    const lock = takeRestoreLock(testDb.url.slice('sqlite:'.length));
    cleanup(async () => lock.release());
    await assert.rejects(
      startServe(env),
      /is being restored \(lipira restore\): start the gateway once the restore has ended/,
    );
  });
});

describe(
  'lipira backup on postgres without its client programs',
  { skip: !DATABASE_KINDS.includes('postgres') },
  () => {
    test('says what to run when pg_dump is not on PATH', async (t) => {
      const { folder, env } = await databaseWithMerchant(t, 'postgres');
      const file = path.join(folder, 'lipira.dump');
      const result = await lipira(['backup', file], { ...env, PATH: folder });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /pg_dump is not on PATH: install PostgreSQL's client programs, or run where they are:\n {2}pg_dump --format=custom --file=\S+lipira\.dump --dbname='postgres:\/\//,
      );
      assert.equal(fs.existsSync(file), false);
    });
  },
);
