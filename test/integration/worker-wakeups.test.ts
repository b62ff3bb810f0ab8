import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/**
 * The workers poll only once a minute here, and a failed webhook is tried again only after an
 * hour: whatever happens within seconds below happened because the worker was told of its work.
 */
const SETTINGS = { WORKER_INTERVAL: '60s', WEBHOOK_RETRY_SCHEDULE: '1h', SANDBOX_MOBILE_DELAY: '300ms' };
/** Far below the poll interval, far above what a woken worker takes on a busy machine. */
const WOKEN_WITHIN_MS = 10_000;

for (const kind of DATABASE_KINDS) {
  describe(`workers woken by their work, not their poll, on ${kind}`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let receiver: Receiver;
    /** The receiver answers 500 to the requests whose number is in here. */
    const refused = new Set<number>();

    before(async () => {
      gw = await startTestGateway(kind, SETTINGS);
      merchant = await gw.newMerchant();
      receiver = await startReceiver((n) => (refused.has(n) ? { status: 500 } : { status: 200 }));
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
      // The first minute's poll is not what delivers anything below.
      await sleep(100);
    });
    after(async () => {
      await assertLedgerBalanced(gw);
      await receiver.close();
      await gw.close();
    });

    const deliveryOf = async (txRef: string) =>
      (await call(gw.url, `/webhooks/deliveries?tx_ref=${txRef}`, { key: merchant.test_secret_key })).body.data.data[0];

    async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
      for (const started = Date.now(); Date.now() - started < WOKEN_WITHIN_MS; await sleep(25)) {
        const value = await read();
        if (value !== undefined) return value;
      }
      throw new Error(`${what} did not happen within ${WOKEN_WITHIN_MS} ms: the worker waited for its poll`);
    }

    /** A payment whose webhook the receiver refused once: its delivery, recorded as tried once and due again in an hour. */
    async function paymentWithRefusedWebhook(): Promise<{
      txRef: string;
      delivery: { id: string; status: string };
      seen: number;
    }> {
      const seen = receiver.received.length;
      refused.add(seen + 1);
      const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      await receiver.waitFor(seen + 1, WOKEN_WITHIN_MS);
      const delivery = await until('the refused try being recorded', async () => {
        const found = await deliveryOf(txRef);
        return found.attempt_count === 1 ? found : undefined;
      });
      return { txRef, delivery, seen };
    }

    test('a payment is settled, its webhook delivered and its receipts sent within moments', async () => {
      const seen = receiver.received.length;
      const started = Date.now();
      const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const [webhook] = (await receiver.waitFor(seen + 1, WOKEN_WITHIN_MS)).slice(seen);
      assert.equal(JSON.parse(webhook!.body).tx_ref, txRef);
      assert.ok(webhook!.at - started < WOKEN_WITHIN_MS);
      const emails = await until('the receipts being sent', async () => {
        const rows = await gw.gateway.database.db
          .selectFrom('emails')
          .select(['status'])
          .where('merchant_id', '=', merchant.id)
          .execute();
        return rows.length > 0 && rows.every((row) => row.status === 'sent') ? rows : undefined;
      });
      assert.ok(emails.length >= 1);
    });

    test('a delivery put back in the queue through the API is sent at once, not at its next retry', async () => {
      const { txRef, delivery: failed, seen } = await paymentWithRefusedWebhook();
      assert.equal(failed.status, 'pending', 'due again in an hour');
      const redelivered = await call(gw.url, `/webhooks/deliveries/${failed.id}/redeliver`, {
        key: merchant.test_secret_key,
        method: 'POST',
      });
      assert.equal(redelivered.status, 200);
      await receiver.waitFor(seen + 2, WOKEN_WITHIN_MS);
      assert.equal(
        (
          await until('the delivery being recorded as delivered', async () => {
            const delivery = await deliveryOf(txRef);
            return delivery.status === 'delivered' ? delivery : undefined;
          })
        ).attempt_count,
        2,
      );
    });

    if (kind === 'postgres') {
      test('a delivery put back by another process (the command line) is sent at once: PostgreSQL tells every process', async () => {
        const { delivery: failed, seen } = await paymentWithRefusedWebhook();
        const cli = await lipira(['webhooks', 'redeliver', failed.id], { DATABASE_URL: gw.database.url });
        assert.equal(cli.code, 0, cli.stderr);
        await receiver.waitFor(seen + 2, WOKEN_WITHIN_MS);
      });

      test('a listening connection that is cut is listened on again, and work committed meanwhile is found', async () => {
        const admin = new pg.Client({ connectionString: gw.database.url });
        await admin.connect();
        try {
          const cut = await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
          );
          assert.equal(cut.rowCount, 1, 'the gateway listens on one connection');
          const seen = receiver.received.length;
          const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
          await receiver.waitFor(seen + 1, WOKEN_WITHIN_MS);
          assert.equal(JSON.parse(receiver.received[seen]!.body).tx_ref, txRef);
          const listening = await until('the gateway listening again', async () => {
            const rows = await admin.query(
              `select 1 from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
            );
            return rows.rowCount === 1 ? rows : undefined;
          });
          assert.equal(listening.rowCount, 1);
        } finally {
          await admin.end();
        }
      });
    }
  });
}

describe('a process that runs no workers (WORKERS=off)', () => {
  test('is ready without them, and says so', async () => {
    const gw = await startTestGateway('sqlite', { WORKERS: 'off' });
    try {
      const ready = await call(gw.url, '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body.data, {
        database: 'up',
        migrations: 'current',
        workers: 'off',
        backups: 'off',
        warnings: [],
      });
    } finally {
      await gw.close();
    }
  });
});
