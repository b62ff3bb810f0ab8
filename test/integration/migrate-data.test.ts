import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateTo, migrationNames } from '../../src/db/migrate.ts';
import type { DB } from '../../src/db/schema.ts';
import { BATCH_ROWS } from '../../src/operations/migrate-data.ts';
import { bankPayoutBody } from '../helpers/bank-payouts.ts';
import { lipira, type CliResult } from '../helpers/cli.ts';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD } from '../helpers/dashboard-pages.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, freePort } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/**
 * `lipira migrate-data` as a real process, moving a SQLite database a real gateway filled (every
 * kind of payment, webhooks delivered, receipts, a payment link, dashboard users signed in) into a
 * new PostgreSQL database; then a gateway on PostgreSQL serves what was moved. Every table is
 * listed from the databases themselves, so a table the move skipped fails here.
 */
const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL: set TEST_DATABASE_URL';

/**
 * The tables this scenario leaves empty, each for a reason: a table added to the schema shows up
 * here until the scenario gives it rows, so that its move is tested with data in it.
 */
const LEFT_EMPTY = [
  'invitations', // invited through the dashboard's team page: not a payment's story
  'payout_schedules', // automatic payouts are set up on the dashboard
  'recovery_codes', // made when two-factor sign-in is switched on
];

/** Test-mode settings the scenario's gateway runs with: loopback webhooks, no request limits in the way of its many creates. */
const GATEWAY_ENV = {
  SANDBOX_MOBILE_DELAY: '200ms',
  RATE_LIMIT_PER_SECOND: '100000',
  RATE_LIMIT_BURST: '100000',
};

/** The tables holding data, as each database lists them: not Kysely's, not SQLite's own or its full-text index tables. */
async function tablesOf(database: Database): Promise<string[]> {
  const { rows } =
    database.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_list
          where schema = 'main' and type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(
          database.db,
        )
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'`.execute(
          database.db,
        );
  return rows.map((row) => row.name).sort();
}

async function countOf(db: Kysely<DB>, table: string): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.count);
}

/** A table's rows, each as JSON with its columns in name order, sorted: both databases' orders of rows and columns set aside. */
async function rowsOf(db: Kysely<DB>, table: string): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
  return rows.map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).sort()))).sort();
}

async function databaseExists(url: string): Promise<boolean> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return ((await client.query('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

function assertExit(result: CliResult, code: number, stderr: RegExp): void {
  assert.equal(result.code, code, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stderr, stderr);
}

describe('lipira migrate-data from SQLite to PostgreSQL', { skip }, () => {
  const folder = temporaryFolder('lipira-migrate-data-');
  const file = path.join(folder.dir, 'lipira.db');
  const sqliteUrl = `sqlite:${file}`;
  const target: TestDatabase = freshDatabase('postgres');
  const others: TestDatabase[] = [];
  let receiver: Receiver;
  let gateway: ServeProcess;
  let merchant: { id: string; test_secret_key: string };
  /** A checkout session paid before the move, by its tx_ref. */
  let paidTxRef: string;

  const move = (from: string, to: string) => lipira(['migrate-data', '--from', from, '--to', to], {});

  before(async () => {
    receiver = await startReceiver();
    // Started on the empty file, the gateway makes its demo merchant (with its app_state marker).
    gateway = await startServe({ DATABASE_URL: sqliteUrl, ...GATEWAY_ENV });
    const created = await lipira(
      [
        'merchant',
        'create',
        '--name',
        'Moved Shop',
        '--email',
        'shop@example.com',
        '--webhook-url',
        receiver.url,
        '--json',
      ],
      { DATABASE_URL: sqliteUrl },
    );
    assert.equal(created.code, 0, created.stderr);
    merchant = JSON.parse(created.stdout) as typeof merchant;
    const owner = await lipira(
      [
        'users',
        'create',
        '--merchant',
        merchant.id,
        '--email',
        'owner@example.com',
        '--role',
        'owner',
        '--password-stdin',
      ],
      { DATABASE_URL: sqliteUrl },
      undefined,
      DASHBOARD_PASSWORD,
    );
    assert.equal(owner.code, 0, owner.stderr);
    // Without a password: a set-password link and its email.
    const developer = await lipira(
      ['users', 'create', '--merchant', merchant.id, '--email', 'dev@example.com', '--role', 'developer'],
      { DATABASE_URL: sqliteUrl },
    );
    assert.equal(developer.code, 0, developer.stderr);

    const env = { LIPIRA_URL: gateway.url, LIPIRA_API_KEY: merchant.test_secret_key };
    const trigger = async (...args: string[]) => {
      const result = await lipira(['trigger', ...args, '--json'], env);
      assert.equal(result.code, 0, result.stderr || result.stdout);
      return JSON.parse(result.stdout) as Record<string, string>;
    };
    paidTxRef = (await trigger('checkout.payment', '--amount', '1500', '--meta', 'order=42')).tx_ref!;
    await trigger('api.charge.payment', '--method', 'mobile_money', '--amount', '2000');
    await trigger('api.charge.payment', '--method', 'card', '--amount', '2500');
    await trigger('api.charge.payment', '--method', 'bank_transfer', '--amount', '3000');
    await trigger('api.refund', '--amount', '1200');
    await trigger('api.payout', '--amount', '500');
    const bankPayout = await call(gateway.url, '/direct-charge/payouts/initialize', {
      key: merchant.test_secret_key,
      body: bankPayoutBody({ amount: 700 }),
    });
    assert.equal(bankPayout.status, 201, bankPayout.text);

    const link = await call(gateway.url, '/payment-links', {
      key: merchant.test_secret_key,
      body: { title: 'Chitenje, 2 m', amount: 4500, currency: 'MWK' },
    });
    assert.equal(link.status, 201, link.text);
    assert.equal((await fetch(link.body.data.url as string)).status, 200, 'the link opens its page');

    // More sessions than one batch holds, so that the copy of a table runs over several.
    const bodies = Array.from({ length: BATCH_ROWS + 20 }, (_, n) => currentBody({ amount: 1000 + n }));
    for (let start = 0; start < bodies.length; start += 10)
      await Promise.all(
        bodies.slice(start, start + 10).map(async (body) => {
          const answer = await call(gateway.url, '/payment', { key: merchant.test_secret_key, body });
          assert.equal(answer.status, 201, answer.text);
        }),
      );

    const browser = new DashboardBrowser(gateway.url);
    assert.equal((await browser.signIn('owner@example.com', DASHBOARD_PASSWORD)).location, '/dashboard');
    // Every payment's webhook delivered, so that deliveries have their attempts.
    await receiver.waitFor(6, 60_000);
  });

  after(async () => {
    await gateway?.dispose();
    await receiver?.close();
    await target.drop();
    for (const other of others) await other.drop();
    folder.remove();
  });

  test('refuses while a gateway has the SQLite file open, touching neither database', async () => {
    assertExit(await move(sqliteUrl, target.url), 1, /is in use by another process \(a running gateway\?\)/);
    assert.equal(await databaseExists(target.url), false, 'PostgreSQL was not reached');
  });

  test('moves every table with its rows, field by field, and checks counts, ledger and balances', async () => {
    assert.equal(await gateway.stop(), 0);
    // The sqlite:///absolute/path form of a URL is read as DATABASE_URL reads it.
    const result = await move(`sqlite://${file}`, target.url);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /the ledger check \(`lipira ledger check`\) clean on PostgreSQL/);

    const source = await openDatabase(sqliteUrl);
    const moved = await openDatabase(target.url);
    try {
      const tables = await tablesOf(moved);
      assert.deepEqual(await tablesOf(source), tables, 'both databases hold the same tables');
      assert.ok(tables.length >= 27, tables.join(' '));
      const empty: string[] = [];
      let largest = 0;
      for (const table of tables) {
        const count = await countOf(source.db, table);
        assert.equal(await countOf(moved.db, table), count, `${table}: as many rows on PostgreSQL as on SQLite`);
        const printed = new RegExp(`^  ${table} +${count} +${count}$`, 'm');
        assert.match(result.stdout, printed, `${table} is in the printed summary with its counts`);
        assert.deepEqual(
          await rowsOf(moved.db, table),
          await rowsOf(source.db, table),
          `${table}: every row, every field`,
        );
        if (count === 0) empty.push(table);
        largest = Math.max(largest, count);
      }
      assert.deepEqual(empty, LEFT_EMPTY, 'every table has rows to move but those the scenario leaves empty');
      assert.ok(largest > BATCH_ROWS, 'a table was copied in several batches');

      // A few rows read as the gateway reads them: money, times and JSON as they were.
      const session = (db: Kysely<DB>) =>
        db.selectFrom('checkout_sessions').selectAll().where('tx_ref', '=', paidTxRef).executeTakeFirstOrThrow();
      const [before, after] = [await session(source.db), await session(moved.db)];
      assert.deepEqual(after, before);
      assert.equal(after.amount_minor, 150_000);
      assert.equal(typeof after.completed_at, 'number');
      assert.deepEqual(JSON.parse(after.meta!), { order: '42' });
      const refund = (db: Kysely<DB>) => db.selectFrom('refunds').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual(await refund(moved.db), await refund(source.db));
      const balances = (db: Kysely<DB>) =>
        db.selectFrom('ledger_accounts').select(['id', 'balance_minor']).orderBy('id').execute();
      assert.deepEqual(await balances(moved.db), await balances(source.db));
      const event = (db: Kysely<DB>) =>
        db.selectFrom('events').selectAll().where('type', '=', 'api.refund').executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse((await event(moved.db)).payload), JSON.parse((await event(source.db)).payload));
    } finally {
      await source.close();
      await moved.close();
    }
    const check = await lipira(['ledger', 'check'], { DATABASE_URL: target.url });
    assert.equal(check.code, 0, check.stderr);
  });

  test('a gateway on PostgreSQL verifies a payment made before the move, and takes new ones', async () => {
    const moved = await startServe({ DATABASE_URL: target.url, ...GATEWAY_ENV });
    try {
      const verified = await call(moved.url, `/verify-payment/${paidTxRef}`, { key: merchant.test_secret_key });
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.body.data.status, 'success');
      assert.equal(verified.body.data.amount, 1500);
      assert.deepEqual(verified.body.data.meta, { order: '42' });
      // New ledger entries, logs and webhook attempts take ids past the moved ones (the sequences were set).
      const env = { LIPIRA_URL: moved.url, LIPIRA_API_KEY: merchant.test_secret_key };
      const webhooks = receiver.received.length;
      const paid = await lipira(['trigger', 'api.refund', '--amount', '800', '--json'], env);
      assert.equal(paid.code, 0, paid.stderr || paid.stdout);
      assert.equal((JSON.parse(paid.stdout) as { refund_status: string }).refund_status, 'success');
      // The payment's webhook and the refund's, sent by the gateway on PostgreSQL.
      await receiver.waitFor(webhooks + 2, 60_000);
    } finally {
      assert.equal(await moved.stop(), 0);
    }
    const check = await lipira(['ledger', 'check'], { DATABASE_URL: target.url });
    assert.equal(check.code, 0, check.stderr);
  });

  test('refuses a PostgreSQL database that already holds data, and leaves it as it was', async () => {
    const database = await openDatabase(target.url);
    try {
      const merchants = await countOf(database.db, 'merchants');
      const result = await move(sqliteUrl, target.url);
      assertExit(
        result,
        1,
        /already holds data \(in [a-z_, ]*merchants[a-z_, ]*\): migrate-data moves into an empty database only/,
      );
      assert.doesNotMatch(result.stdout, /^ {2}table/m, 'no table was copied');
      assert.equal(await countOf(database.db, 'merchants'), merchants);
    } finally {
      await database.close();
    }
  });

  test('refuses a source not at the current migration, before reaching PostgreSQL', async () => {
    const old = freshDatabase('sqlite');
    others.push(old);
    const database = await openDatabase(old.url);
    const names = migrationNames();
    await migrateTo(database, names.at(-2)!);
    await database.close();
    const fresh = freshDatabase('postgres');
    others.push(fresh);
    assertExit(
      await move(old.url, fresh.url),
      1,
      new RegExp(
        `is not at this Lipira's current migration \\(it lacks ${names.at(-1)}\\): run \`DATABASE_URL=sqlite:`,
      ),
    );
    assert.equal(await databaseExists(fresh.url), false);
  });

  test('refuses databases whose tables differ, and a source whose ledger does not balance', async () => {
    const odd = freshDatabase('sqlite');
    others.push(odd);
    const made = await lipira(['merchant', 'create', '--name', 'Odd Shop', '--email', 'shop@example.com'], {
      DATABASE_URL: odd.url,
    });
    assert.equal(made.code, 0, made.stderr);
    /** Runs SQL on the SQLite file and closes it again: the move refuses a file another connection holds. */
    const onSqlite = (statements: string) => {
      const connection = new BetterSqlite3(odd.url.slice('sqlite:'.length));
      connection.exec(statements);
      connection.close();
    };
    onSqlite('create table notes (body text); alter table app_state add column note text');
    const fresh = freshDatabase('postgres');
    others.push(fresh);
    const prepared = await openDatabase(fresh.url);
    await sql`create table flags (on_hold boolean)`.execute(prepared.db);
    await prepared.close();
    const differing = await move(odd.url, fresh.url);
    assertExit(differing, 1, /the two databases' schemas differ, so the move cannot copy one into the other:/);
    assert.match(differing.stderr, /^ {2}tables only on SQLite: notes$/m);
    assert.match(differing.stderr, /^ {2}tables only on PostgreSQL: flags$/m);
    assert.match(differing.stderr, /^ {2}app_state: columns note are on one side only$/m);
    assert.match(differing.stderr, /^ {2}flags\.on_hold is of type bool, which migrate-data cannot convert$/m);

    // The schema as it was, and a ledger transaction whose one entry is not balanced by another.
    onSqlite(`drop table notes;
      alter table app_state drop column note;
      insert into ledger_accounts values ('acc_odd', 'system', 'test', 'MWK', 'fees', 5, 0, 0);
      insert into ledger_transactions values ('ltx_odd', 'test', 'payment', null, 0);
      insert into ledger_entries (transaction_id, account_id, amount_minor) values ('ltx_odd', 'acc_odd', 5);`);
    const unbalanced = await move(odd.url, fresh.url);
    assertExit(
      unbalanced,
      1,
      /the ledger check fails on sqlite:.*, so the move would copy a ledger that does not balance:/,
    );
    assert.match(unbalanced.stderr, /^ {2}transaction ltx_odd sums to 5, not 0$/m);
  });

  test('a copy that fails part-way writes nothing: the move is one transaction', async () => {
    const broken = freshDatabase('sqlite');
    others.push(broken);
    for (const name of ['First Shop', 'Second Shop']) {
      const made = await lipira(['merchant', 'create', '--name', name, '--email', 'shop@example.com'], {
        DATABASE_URL: broken.url,
      });
      assert.equal(made.code, 0, made.stderr);
    }
    // SQLite keeps a NUL in text; PostgreSQL refuses it. Merchants are copied before their webhook secrets.
    const connection = new BetterSqlite3(broken.url.slice('sqlite:'.length));
    connection.prepare(`update webhook_secrets set secret = secret || char(0) where mode = 'live'`).run();
    connection.close();
    const fresh = freshDatabase('postgres');
    others.push(fresh);
    const result = await move(broken.url, fresh.url);
    assertExit(
      result,
      1,
      /copying webhook_secrets failed: .*\n.*Nothing was written to postgres:.*: the copy is one transaction, rolled back/,
    );
    assert.match(result.stdout, /^ {2}merchants +2 +2$/m, 'merchants were copied before the failure');
    const database = await openDatabase(fresh.url);
    try {
      for (const table of await tablesOf(database)) assert.equal(await countOf(database.db, table), 0, table);
    } finally {
      await database.close();
    }
  });

  test('bad --from and --to are usage errors; a missing or unreadable file and an unreachable server are refused', async () => {
    const pgUrl = target.url;
    assertExit(await move(pgUrl, pgUrl), 2, /--from must name a SQLite database \(sqlite:PATH\)/);
    assertExit(await move('sqlite:', pgUrl), 2, /--from needs a file path after "sqlite:"/);
    assertExit(
      await move(sqliteUrl, 'mysql://db.example/lipira'),
      2,
      /--to must start with "sqlite:" or "postgres:\/\/"/,
    );
    assertExit(await move(sqliteUrl, 'postgres://127.0.0.1'), 2, /--to must be postgres:\/\/USER@HOST:PORT\/DATABASE/);
    assertExit(await move(sqliteUrl, 'sqlite:/tmp/other.db'), 2, /--to must name a PostgreSQL database/);
    assertExit(await lipira(['migrate-data', '--from', sqliteUrl], {}), 2, /--to is required/);
    assertExit(
      await move(`sqlite:${path.join(folder.dir, 'missing.db')}`, pgUrl),
      1,
      /there is no SQLite database at .*missing\.db/,
    );
    const notSqlite = path.join(folder.dir, 'notes.txt');
    fs.writeFileSync(notSqlite, 'not a database, but long enough to be taken for one by its size alone\n'.repeat(20));
    assertExit(await move(`sqlite:${notSqlite}`, pgUrl), 1, /notes\.txt cannot be read: file is not a database/);
    assertExit(
      await move(sqliteUrl, `postgres://postgres@127.0.0.1:${await freePort()}/lipira`),
      1,
      /cannot open and migrate postgres:\/\/postgres@127\.0\.0\.1:\d+\/lipira: .*ECONNREFUSED/,
    );
  });
});
