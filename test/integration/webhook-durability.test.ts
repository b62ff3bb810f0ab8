import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from 'lipira';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/database.ts';
import { emitEvent } from '../../src/events/event-repository.ts';
import { createMerchant, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';
import { useCleanup } from '../helpers/cleanup.ts';

/**
 * What the outbox promises across processes: a webhook and receipts committed with a payment
 * survive a crash of the process that took it and go out exactly once afterwards, and several
 * processes draining one PostgreSQL queue never send the same webhook twice.
 */

for (const kind of DATABASE_KINDS) {
  describe(`webhooks and receipts survive a crash on ${kind}`, () => {
    test(
      'a payment committed just before SIGKILL is announced once by the next process',
      { timeout: 120_000 },
      async (t) => {
        const cleanup = useCleanup(t);
        const testDb = freshDatabase(kind);
        cleanup(() => testDb.drop());
        const receiver = await startReceiver();
        cleanup(() => receiver.close());
        const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
        cleanup(async () => fs.rmSync(outbox, { recursive: true, force: true }));
        const database = await openMigratedDatabase(testDb.url);
        cleanup(() => database.close());
        const merchant = await createMerchant(
          database.db,
          {
            name: 'Crash Shop',
            email: 'owner@crash.example',
            webhookUrl: receiver.url,
            feeBasisPoints: 300,
          },
          Date.now(),
        );
        const env = { DATABASE_URL: testDb.url, OUTBOX_DIR: outbox, SMTP_URL: '' };

        // The first process runs no workers: it never sends anything, so whatever goes out later
        // can only come from what the payment's transaction left in the database.
        const first = await startServe({ ...env, WORKERS: 'off' });
        cleanup(() => first.dispose());
        const txRef = await payByCard(first, merchant);
        const verified = await call(first.url, `/verify-payment/${txRef}`, { key: merchant.test_secret_key });
        assert.equal(verified.status, 200, verified.text);
        assert.equal(verified.body.data.status, 'success');
        assert.equal(receiver.received.length, 0, 'no webhook before the crash');
        assert.deepEqual(fs.readdirSync(outbox), [], 'no receipt before the crash');
        assert.deepEqual(
          await pendingWork(database),
          { deliveries: ['pending'], emails: ['pending', 'pending'] },
          'the payment committed its webhook and both receipts',
        );
        await first.crash();

        const second = await startServe({ ...env, WORKER_INTERVAL: '100ms' });
        cleanup(() => second.dispose());
        const [request] = await receiver.waitFor(1, 15_000);
        const receipts = await waitForFiles(outbox, 2, 15_000);
        // Ten more worker rounds: long enough for a second copy of either to show up.
        await sleep(1_000);
        assert.equal(receiver.received.length, 1, 'the webhook arrives exactly once');
        assert.deepEqual(fs.readdirSync(outbox).sort(), receipts, 'each receipt is written exactly once');

        const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
        assert.equal(payload.event_type, 'checkout.payment');
        assert.equal(payload.tx_ref, txRef);
        assert.equal(payload.status, 'success');
        const delivery = await database.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
        assert.equal(request!.headers['webhook-id'], delivery.id);
        assert.equal(delivery.status, 'delivered');
        assert.equal(delivery.attempts, 1);

        assert.ok(
          receipts.every((file) => file.endsWith('.eml')),
          receipts.join(', '),
        );
        const recipients = receipts
          .map((file) => /^To: (.+)$/m.exec(fs.readFileSync(path.join(outbox, file), 'utf8'))?.[1]?.trim())
          .sort();
        assert.deepEqual(
          recipients,
          ['jane@example.com', 'owner@crash.example'],
          'one receipt for the customer, one for the merchant',
        );
        const emails = await database.db.selectFrom('emails').select(['status', 'attempts']).execute();
        assert.deepEqual(emails, [
          { status: 'sent', attempts: 1 },
          { status: 'sent', attempts: 1 },
        ]);

        assert.equal(await second.stop(), 0, 'SIGTERM stops it cleanly');
      },
    );
  });
}

const EVENTS = 1_000;
const PER_TRANSACTION = 50;

describe('two processes draining one PostgreSQL webhook queue', () => {
  // The claims under test (FOR UPDATE SKIP LOCKED, leases) are PostgreSQL's; SQLite has one writer at a time.
  const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL: set TEST_DATABASE_URL';

  test(`${EVENTS} webhooks go out once each, never two copies in flight`, { skip, timeout: 180_000 }, async (t) => {
    const cleanup = useCleanup(t);
    const testDb = freshDatabase('postgres');
    cleanup(() => testDb.drop());
    const receiver = await startCountingReceiver();
    cleanup(() => receiver.close());
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    cleanup(async () => fs.rmSync(outbox, { recursive: true, force: true }));
    const database = await openMigratedDatabase(testDb.url);
    cleanup(() => database.close());
    const merchant = await createMerchant(
      database.db,
      {
        name: 'Busy Shop',
        email: 'owner@busy.example',
        webhookUrl: receiver.url,
        feeBasisPoints: 300,
      },
      Date.now(),
    );

    // The whole queue exists before either process starts, so both compete for the same rows.
    const chargeIds = await emitFailedCharges(database, merchant.id, EVENTS);
    const deliveryIds = (await database.db.selectFrom('webhook_deliveries').select('id').execute()).map(
      (row) => row.id,
    );
    assert.equal(deliveryIds.length, EVENTS);

    const env = { DATABASE_URL: testDb.url, OUTBOX_DIR: outbox, SMTP_URL: '', WORKER_INTERVAL: '50ms' };
    const servers = await startSideBySide([env, env], cleanup);
    // Held until now, the first batches keep whichever process started first busy, so the
    // other one surely claims rows of its own while they are outstanding.
    receiver.open(servers.map((server) => server.pid));

    await eventually(
      () => `all ${EVENTS} webhooks (${receiver.distinctIds()} arrived)`,
      () => receiver.distinctIds() === EVENTS,
      60_000,
    );
    const undelivered = () =>
      database.db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'delivered').execute();
    await eventually(
      async () => `every delivery recorded as delivered (${(await undelivered()).length} not)`,
      async () => (await undelivered()).length === 0,
      15_000,
    );
    // Twenty more worker rounds for any duplicate to show up.
    await sleep(1_000);

    assert.equal(receiver.requests.length, EVENTS, 'no webhook was received twice');
    assert.deepEqual(
      [...receiver.timesById().keys()].sort(),
      [...deliveryIds].sort(),
      'every delivery arrived, under its own webhook-id',
    );
    assert.equal(receiver.mostInFlightForOneId(), 1, 'no webhook was ever in flight twice at once');
    const payloads = receiver.requests.map((request) =>
      verifyWebhook(request.body, request.headers, merchant.webhook_secret),
    );
    assert.deepEqual(
      payloads.map((payload) => payload.charge_id).sort(),
      [...chargeIds].sort(),
      'each event was sent with its own payload',
    );
    const attempts = await database.db
      .selectFrom('webhook_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(attempts.n), EVENTS, 'one attempt recorded per delivery');

    const shares = receiver.sharesByPid();
    t.diagnostic(
      `webhooks sent per process: ${servers.map((server) => `pid ${server.pid}: ${shares.get(server.pid) ?? 0}`).join(', ')}; unattributed: ${shares.get(null) ?? 0}`,
    );
    if (shares.get(null) !== EVENTS) {
      // Attribution reads /proc (Linux); where it works, both processes must have taken part.
      for (const server of servers)
        assert.ok(
          (shares.get(server.pid) ?? 0) > 0,
          `pid ${server.pid} sent none: the test did not exercise two senders`,
        );
    }

    for (const server of servers) assert.equal(await server.stop(), 0, 'SIGTERM stops it cleanly');
  });
});

/** Starts one `lipira serve` per environment at once; each that started is cleaned up even if another did not. */
async function startSideBySide(
  envs: Array<Record<string, string>>,
  cleanup: (step: () => Promise<unknown>) => void,
): Promise<ServeProcess[]> {
  const started = await Promise.allSettled(envs.map((env) => startServe(env)));
  for (const result of started) if (result.status === 'fulfilled') cleanup(() => result.value.dispose());
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return started.map((result) => (result as PromiseFulfilledResult<ServeProcess>).value);
}

/** Opens a test-mode session on `server` and pays it by card with the sandbox's one-time code; returns its tx_ref. */
async function payByCard(server: ServeProcess, merchant: MerchantCredentials): Promise<string> {
  const body = currentBody();
  const created = await call(server.url, '/payment', { key: merchant.test_secret_key, body });
  assert.equal(created.status, 201, created.text);
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  const browser = new CheckoutClient(server.url);
  assert.equal((await browser.get(pagePath)).status, 200);
  const posted = await browser.post(`${pagePath}/pay/card`, {
    card_number: '4242 4242 4242 4242',
    expiry: '12/30',
    cvv: '123',
  });
  assert.equal(posted.status, 303, posted.text);
  const attemptPath = new URL(posted.location!).pathname;
  assert.equal((await browser.get(attemptPath)).status, 200);
  // The payment, its webhook delivery and its receipts commit together inside this request.
  const done = await browser.follow(await browser.post(`${attemptPath}/otp`, { otp: '1234' }));
  assert.equal(new URL(done.location!).searchParams.get('status'), 'success', done.text);
  return String(body.tx_ref);
}

async function pendingWork(database: Database): Promise<{ deliveries: string[]; emails: string[] }> {
  const deliveries = await database.db.selectFrom('webhook_deliveries').select('status').execute();
  const emails = await database.db.selectFrom('emails').select('status').execute();
  return { deliveries: deliveries.map((row) => row.status), emails: emails.map((row) => row.status) };
}

/**
 * Records `count` failed direct-charge events, `PER_TRANSACTION` to a transaction, the way the
 * product does: each queues its webhook, and being failures they queue no receipts.
 */
async function emitFailedCharges(database: Database, merchantId: string, count: number): Promise<string[]> {
  const chargeIds = Array.from({ length: count }, (_, i) => `durability-${String(i).padStart(4, '0')}`);
  for (let start = 0; start < count; start += PER_TRANSACTION) {
    await database.db.transaction().execute(async (trx) => {
      for (const chargeId of chargeIds.slice(start, start + PER_TRANSACTION)) {
        const payload = { event_type: 'api.charge.payment', status: 'failed', charge_id: chargeId, mode: 'test' };
        await emitEvent(
          trx,
          { merchantId, mode: 'test', type: 'api.charge.payment', subjectId: chargeId, payload },
          Date.now(),
          'UTC',
        );
      }
    });
  }
  return chargeIds;
}

interface CountedRequest {
  id: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The process that sent it, when that can be told. */
  senderPid: number | null;
}

/**
 * A webhook endpoint that holds every request until `open`, then answers each after 0–20 ms,
 * so that two copies of one webhook sent side by side would overlap; it counts how many
 * copies of each `webhook-id` are in flight at once and, on Linux, which process sent each.
 */
async function startCountingReceiver() {
  const requests: CountedRequest[] = [];
  const inFlight = new Map<string, number>();
  let mostInFlight = 0;
  let senders: number[] = [];
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    const now = (inFlight.get(id) ?? 0) + 1;
    inFlight.set(id, now);
    mostInFlight = Math.max(mostInFlight, now);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      await opened;
      // Asked while the sender still holds the connection open, waiting for our answer.
      const [senderPid] = await Promise.all([ownerOf(request.socket.remotePort ?? 0), sleep(Math.random() * 20)]);
      requests.push({ id, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), senderPid });
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const ownerOf = connectionOwners(port, () => senders);

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    /** Starts answering; `pids` are the processes whose requests to attribute. */
    open(pids: number[]) {
      senders = pids;
      release();
    },
    distinctIds: () => new Set(requests.map((request) => request.id)).size,
    timesById() {
      const times = new Map<string, number>();
      for (const request of requests) times.set(request.id, (times.get(request.id) ?? 0) + 1);
      return times;
    },
    mostInFlightForOneId: () => mostInFlight,
    sharesByPid() {
      const shares = new Map<number | null, number>();
      for (const request of requests) shares.set(request.senderPid, (shares.get(request.senderPid) ?? 0) + 1);
      return shares;
    },
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Tells which of the processes `pids()` names holds a loopback TCP connection to
 * `receiverPort`, given the connection's other port: its socket's inode from /proc/net/tcp,
 * looked for among each process's open files (Linux only; null elsewhere or when the
 * connection is gone). Reading /proc/net/tcp is slow, so one scan serves every request that
 * arrived before it started.
 */
function connectionOwners(receiverPort: number, pids: () => number[]): (senderPort: number) => Promise<number | null> {
  let running: Promise<unknown> = Promise.resolve();
  let queued: Promise<Map<number, number>> | null = null;
  return async (senderPort) => {
    // A scan already under way may have read the table before this connection was made.
    queued ??= running.then(() => {
      queued = null;
      const scan = scanConnectionOwners(receiverPort, pids());
      running = scan;
      return scan;
    });
    return (await queued).get(senderPort) ?? null;
  };
}

/** Sender port → pid, for the connections to `receiverPort` that one of `pids` holds. */
async function scanConnectionOwners(receiverPort: number, pids: number[]): Promise<Map<number, number>> {
  const owners = new Map<number, number>();
  const table = await fs.promises.readFile('/proc/net/tcp', 'utf8').catch(() => '');
  const portOf = (address: string | undefined) => parseInt(address?.split(':')[1] ?? '', 16);
  const senderPortByInode = new Map<string, number>();
  for (const fields of table.split('\n').map((line) => line.trim().split(/\s+/))) {
    if (portOf(fields[2]) === receiverPort && fields[9] && fields[9] !== '0')
      senderPortByInode.set(fields[9], portOf(fields[1]));
  }
  for (const pid of pids) {
    const fds = await fs.promises.readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await fs.promises.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const senderPort = senderPortByInode.get(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '');
      if (senderPort !== undefined) owners.set(senderPort, pid);
    }
  }
  return owners;
}

/** Waits until `dir` holds `count` files and returns their names, sorted. */
async function waitForFiles(dir: string, count: number, timeoutMs: number): Promise<string[]> {
  const files = () => fs.readdirSync(dir).filter((name) => !name.endsWith('.tmp'));
  await eventually(
    () => `${count} files in ${dir} (found ${files().join(', ') || 'none'})`,
    () => files().length >= count,
    timeoutMs,
  );
  return files().sort();
}
