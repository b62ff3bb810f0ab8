import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { freePort } from '../helpers/gateway.ts';
import { startTcpProxy, type TcpProxy } from '../faults/tcp-proxy.ts';

/**
 * Which failures count as "the database is unavailable" (503, a worker backs off), told from
 * real errors of real databases; and what the PostgreSQL limits guarantee when the link to the
 * server goes silent in the middle of a transaction.
 */

/** The error `work` rejects with; fails the test if it resolves. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => assert.fail('expected a failure'),
    (error: unknown) => error,
  );
}

describe('database unavailability on SQLite', () => {
  test('a write lock held by another process past busy_timeout is unavailability; a broken constraint is not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-busy-'));
    const file = path.join(dir, 'busy.db');
    const database = await openDatabase(`sqlite:${file}`);
    const other = new BetterSqlite3(file);
    try {
      await sql`create table probe (id integer primary key)`.execute(database.db);
      await sql`insert into probe values (1)`.execute(database.db);
      other.exec('begin immediate');
      const impatient = new BetterSqlite3(file);
      impatient.pragma('busy_timeout = 0');
      let busy: unknown;
      try {
        impatient.exec('insert into probe values (2)');
      } catch (error) {
        busy = error;
      } finally {
        impatient.close();
      }
      assert.match(String((busy as { code?: string } | undefined)?.code), /^SQLITE_BUSY/);
      assert.equal(isDatabaseUnavailable(busy), true);
      other.exec('rollback');
      const duplicate = await failureOf(sql`insert into probe values (1)`.execute(database.db));
      assert.equal(isDatabaseUnavailable(duplicate), false);
    } finally {
      other.close();
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const LIMITS = { connectTimeoutMs: 500, queryTimeoutMs: 500 };
/** What node-postgres waits for an answer under LIMITS: the query timeout and its margin. */
const ANSWER_WAIT_MS = 1_500;

describe(
  'database unavailability on PostgreSQL',
  { skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set', timeout: 30_000 },
  () => {
    let testDb: TestDatabase;
    let proxy: TcpProxy;
    let database: Database;

    before(async () => {
      testDb = freshDatabase('postgres');
      const direct = new URL(testDb.url);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const proxied = new URL(testDb.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      database = await openDatabase(proxied.toString(), LIMITS);
      await sql`create table probe (id integer primary key)`.execute(database.db);
    });
    after(async () => {
      await database?.close();
      await proxy?.close();
      await testDb?.drop();
    });

    test('refused, terminated by the server and never-answered connections are unavailability; SQL errors are not', async () => {
      const closedPort = await freePort();
      const refused = await failureOf(openDatabase(`postgres://postgres@127.0.0.1:${closedPort}/lipira`, LIMITS));
      assert.equal(isDatabaseUnavailable(refused), true, String(refused));

      const admin = new pg.Client({ connectionString: testDb.url });
      await admin.connect();
      try {
        const terminated = await failureOf(
          database.db.transaction().execute(async (trx) => {
            const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
            // Terminated while a statement runs, so that this statement receives the server's error.
            await sql`set local statement_timeout = 0`.execute(trx);
            const sleeping = sql`select pg_sleep(1)`.execute(trx);
            // It may fail before the termination's own answer arrives: handled from now on, or that
            // ordering (seen on a busy machine) is an unhandled rejection.
            sleeping.catch(() => undefined);
            await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
            await sleeping;
          }),
        );
        // The rollback that follows fails at once, on the same dead connection, with the server's error as its cause.
        const cause = (terminated as Error).cause ?? terminated;
        assert.equal((cause as { code?: string }).code, '57P01', String(cause));
        assert.equal(isDatabaseUnavailable(terminated), true);
      } finally {
        await admin.end();
      }

      await proxy.cut('blackhole');
      await sleep(50); // the pool drops its connections, reset by the cut
      const started = Date.now();
      const unanswered = await failureOf(sql`select 1`.execute(database.db));
      assert.ok(Date.now() - started < LIMITS.connectTimeoutMs + 1_000, `gave up after ${Date.now() - started} ms`);
      assert.equal(isDatabaseUnavailable(unanswered), true, String(unanswered));
      await proxy.restore();

      await sql`insert into probe values (1)`.execute(database.db);
      assert.equal(
        isDatabaseUnavailable(await failureOf(sql`insert into probe values (1)`.execute(database.db))),
        false,
      );
      assert.equal(isDatabaseUnavailable(await failureOf(sql`selec 1`.execute(database.db))), false);
      assert.equal(isDatabaseUnavailable(new Error('boom')), false);
      await sql`delete from probe`.execute(database.db);
    });

    test('opening the database through a link that never answers fails within the connect timeout instead of hanging the start', async () => {
      const proxied = new URL(testDb.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      await proxy.cut('blackhole');
      try {
        const started = Date.now();
        const unanswered = await failureOf(openDatabase(proxied.toString(), LIMITS));
        assert.ok(Date.now() - started < LIMITS.connectTimeoutMs + 1_000, `gave up after ${Date.now() - started} ms`);
        assert.equal(isDatabaseUnavailable(unanswered), true, String(unanswered));
      } finally {
        await proxy.restore();
      }
    });

    test('a link that goes silent mid-transaction fails within the query timeout, commits nothing, and its connection is not lent again', async () => {
      const started = Date.now();
      const frozen = await failureOf(
        database.db.transaction().execute(async (trx) => {
          await sql`insert into probe values (10)`.execute(trx);
          await proxy.cut('freeze');
          await sql`insert into probe values (11)`.execute(trx);
        }),
      );
      const failedAfter = Date.now() - started;
      assert.equal(isDatabaseUnavailable(frozen), true, String(frozen));
      // One wait for the answer that never came; the rollback on the dead connection fails at once.
      assert.ok(failedAfter < ANSWER_WAIT_MS * 1.6, `the transaction failed after ${failedAfter} ms`);
      await proxy.restore();

      // Had the silent connection gone back to the pool, this would wait on it and time out.
      const again = Date.now();
      await sql`select 1`.execute(database.db);
      assert.ok(Date.now() - again < ANSWER_WAIT_MS, `the next query took ${Date.now() - again} ms`);
      // The server ended the abandoned transaction (idle in transaction past the query timeout):
      // its uncommitted row neither exists nor holds the key.
      await sql`insert into probe values (10)`.execute(database.db);
      const { rows } = await sql<{ id: number }>`select id from probe order by id`.execute(database.db);
      assert.deepEqual(
        rows.map((row) => row.id),
        [10],
      );
    });
  },
);
