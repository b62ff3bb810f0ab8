import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { lipira } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { call, freePort } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/**
 * `lipira serve --workers N` as real processes: a `node:cluster` primary and its workers, each a
 * whole gateway on one port. Several processes are for PostgreSQL; on SQLite they are refused.
 */

const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL: set TEST_DATABASE_URL';

type LogLine = Record<string, unknown>;

/** The JSON lines a gateway logged (the demo merchant's banner and errors are plain text). */
const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** The pids of the workers the primary saw listening, in order. */
const listeningWorkers = (serve: ServeProcess): number[] =>
  logLines(serve.output)
    .filter((line) => line.msg === 'worker listening')
    .map((line) => line.worker as number);

async function waitFor<T>(what: string, serve: ServeProcess, found: () => T | undefined | false): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50)) {
    const value = found();
    if (value !== undefined && value !== false) return value;
  }
  throw new Error(`never saw ${what}:\n${serve.output}`);
}

/**
 * The pids that answered `count` requests, each on a connection of its own: the primary hands
 * out connections, not requests, so a kept-alive connection would stay with one worker.
 */
async function answeringPids(serve: ServeProcess, count: number): Promise<Set<number>> {
  const ids: string[] = [];
  for (let sent = 0; sent < count; sent++) {
    ids.push(
      await new Promise<string>((resolve, reject) => {
        http
          .get(`${serve.url}/healthz`, { agent: false }, (response) => {
            response.resume();
            response.on('end', () => resolve(String(response.headers['x-request-id'])));
          })
          .on('error', reject);
      }),
    );
  }
  return waitFor('a log line for every request', serve, () => {
    const pids = new Map(logLines(serve.output).map((line) => [line.reqId, line.pid as number]));
    return ids.every((id) => pids.has(id)) && new Set(ids.map((id) => pids.get(id)!));
  });
}

/** Pays a new checkout session by mobile money on its hosted page and checks it is verified paid. */
async function takePayment(serve: ServeProcess, key: string): Promise<void> {
  const payment = await payByMobileMoney(serve.url, key, TEST_NUMBERS.airtelSuccess);
  assert.ok(payment.landedAt, 'the customer was sent back to the shop');
  const verified = await call(serve.url, `/verify-payment/${payment.txRef}`, { key });
  assert.equal(verified.status, 200, verified.text);
  assert.equal(verified.body.data.status, 'success');
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('lipira serve --workers 2 on postgres', { skip }, () => {
  let database: TestDatabase;
  let serve: ServeProcess;
  let key: string;
  before(async () => {
    database = freshDatabase('postgres');
    serve = await startServe(
      { DATABASE_URL: database.url, LOG_LEVEL: 'info', SANDBOX_MOBILE_DELAY: '200ms', SHUTDOWN_GRACE: '0' },
      { args: ['--workers', '2'] },
    );
    await waitFor('both workers listening', serve, () => listeningWorkers(serve).length === 2);
    key = /sec-test-\w+/.exec(serve.output)![0];
  });
  after(async () => {
    await serve.dispose();
    await database.drop();
  });

  test('the primary introduces the demo merchant once and serves nothing; both workers answer and take a payment', async () => {
    assert.equal(serve.output.match(/Created a demo merchant/g)?.length, 1, serve.output);
    const workers = listeningWorkers(serve);
    assert.equal(new Set(workers).size, 2);
    assert.ok(!workers.includes(serve.pid), 'the primary does not listen itself');
    assert.deepEqual(await answeringPids(serve, 8), new Set(workers), 'connections go round both workers');
    await takePayment(serve, key);
  });

  test('a worker killed with SIGKILL is replaced, logged, and payments go on', async () => {
    const [victim, survivor] = listeningWorkers(serve) as [number, number];
    process.kill(victim, 'SIGKILL');
    await waitFor('the crash logged', serve, () =>
      logLines(serve.output).some(
        (line) => line.msg === 'worker exited unexpectedly; starting another' && line.worker === victim,
      ),
    );
    await takePayment(serve, key);
    const replacement = await waitFor('a replacement listening', serve, () => listeningWorkers(serve)[2]);
    assert.ok(replacement !== victim && replacement !== survivor);
    assert.deepEqual(await answeringPids(serve, 8), new Set([survivor, replacement]));
    await takePayment(serve, key);
  });

  test('SIGTERM to the primary drains every worker; the primary exits 0 and leaves none', async () => {
    const children = execFileSync('ps', ['--ppid', String(serve.pid), '-o', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('lipira.js serve'))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    assert.deepEqual(new Set(children), new Set(listeningWorkers(serve).slice(1)), 'ps agrees with the log');
    assert.equal(await serve.stop(), 0, serve.output);
    const lines = logLines(serve.output);
    for (const pid of children) {
      assert.ok(!isRunning(pid), `worker ${pid} has gone`);
      assert.ok(
        lines.some((line) => line.pid === pid && line.msg === 'shutting down'),
        `worker ${pid} closed its gateway`,
      );
      assert.ok(lines.some((line) => line.msg === 'worker stopped' && line.worker === pid && line.code === 0));
    }
  });
});

describe('lipira serve and its number of processes', () => {
  test('--workers 2 on SQLite is refused with the reason in one line, exit 2, before the database is made', async () => {
    const folder = temporaryFolder('lipira-workers-');
    try {
      const file = path.join(folder.dir, 'lipira.db');
      const flag = await lipira(['serve', '--workers', '2'], { DATABASE_URL: `sqlite:${file}` });
      assert.equal(flag.code, 2, flag.stderr);
      assert.match(
        flag.stderr,
        /^lipira: --workers 2 needs PostgreSQL: SQLite writes one transaction at a time to its one file, each commit an fsync, so more processes only queue for its write lock \(measured slower: docs\/operate\/deployment\.md, Several processes\)\n$/,
      );
      const setting = await lipira(['serve'], { DATABASE_URL: `sqlite:${file}`, WEB_CONCURRENCY: '3' });
      assert.equal(setting.code, 2, setting.stderr);
      assert.match(setting.stderr, /^lipira: WEB_CONCURRENCY=3 needs PostgreSQL: [^\n]+\n$/);
      assert.ok(!fs.existsSync(file));
    } finally {
      folder.remove();
    }
  });

  test('a bad WEB_CONCURRENCY or --workers is refused, exit 2', async () => {
    for (const value of ['0', 'two', '65', '1.5']) {
      const refused = await lipira(['serve'], { DATABASE_URL: 'sqlite:./lipira.db', WEB_CONCURRENCY: value });
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(
        refused.stderr,
        `lipira: Invalid configuration: WEB_CONCURRENCY must be a whole number from 1 to 64 (got "${value}")\n`,
      );
    }
    const flag = await lipira(['serve', '--workers', '0'], { DATABASE_URL: 'sqlite:./lipira.db' });
    assert.equal(flag.code, 2, flag.stderr);
    assert.equal(flag.stderr, 'lipira: --workers must be a whole number from 1 to 64 (got "0")\n');
  });

  test('--workers 1 wins over WEB_CONCURRENCY and serves in the one process, as without either', async () => {
    const database = freshDatabase('sqlite');
    const serve = await startServe(
      { DATABASE_URL: database.url, LOG_LEVEL: 'info', WEB_CONCURRENCY: '2' },
      { args: ['--workers', '1'] },
    );
    try {
      assert.deepEqual(await answeringPids(serve, 2), new Set([serve.pid]));
      assert.ok(!serve.output.includes('worker started'), serve.output);
    } finally {
      assert.equal(await serve.stop(), 0);
      await database.drop();
    }
  });

  test(
    'workers that cannot start stop the whole thing after 5 exits in a row, however slowly each fails, exit 1',
    { skip },
    async () => {
      const database = freshDatabase('postgres');
      const port = await freePort();
      const taken = net.createServer().listen(port, '127.0.0.1');
      try {
        const result = await lipira(['serve', '--workers', '2'], { DATABASE_URL: database.url, PORT: String(port) });
        assert.equal(result.code, 1, result.stderr);
        // A fifth exit stops the worker still starting, which may or may not have tried to listen.
        assert.ok(result.stderr.match(/EADDRINUSE/g)!.length >= 5, 'each worker said why it exited');
        assert.match(
          result.stderr,
          /\nlipira: workers exited unexpectedly 5 times in a row before listening, so lipira serve stopped \(the log says why they exited\)\n$/,
        );
      } finally {
        taken.close();
        await database.drop();
      }
    },
  );
});
