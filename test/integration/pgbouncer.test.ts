import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lipira } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { call } from '../helpers/gateway.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { pgbouncerSuiteOptions, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';

/**
 * Lipira behind PgBouncer in transaction mode, as docs/operate/deployment.md (A connection pooler) says to
 * run it: every query through the pooler, the workers' LISTEN on a direct connection
 * (DATABASE_LISTEN_URL), and no named prepared statements (DATABASE_NAMED_STATEMENTS=off: Debian's
 * PgBouncer, 1.18, does not track them). The workers' poll is an hour away, so a webhook that
 * arrives at once was sent because the LISTEN heard the commit.
 */
describe('behind PgBouncer in transaction mode', pgbouncerSuiteOptions(), () => {
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let receiver: Receiver;
  let gateway: ServeProcess;
  let secretKey: string;

  before(async () => {
    database = freshDatabase('postgres');
    bouncer = await startPgBouncer(database.url);
    receiver = await startReceiver();
    const env = { DATABASE_URL: bouncer.through(database.url) };
    const created = await lipira(
      ['merchant', 'create', '--name', 'Pooled Shop', '--email', 'p@example.com', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const merchant = JSON.parse(created.stdout);
    secretKey = merchant.test_secret_key;
    const updated = await lipira(['merchant', 'update', merchant.id, '--webhook-url', receiver.url], env);
    assert.equal(updated.code, 0, updated.stderr);
    gateway = await startServe({
      ...env,
      DATABASE_LISTEN_URL: database.url,
      DATABASE_NAMED_STATEMENTS: 'off',
      WORKER_INTERVAL: '1h',
      SANDBOX_MOBILE_DELAY: '300ms',
    });
  });
  after(async () => {
    await gateway?.stop();
    await receiver?.close();
    await bouncer?.close();
    await database?.drop();
  });

  test('migrations, a payment paid on the hosted page, its webhook woken by the LISTEN, and verify all work through the pooler', async () => {
    const { txRef, landedAt } = await payByMobileMoney(gateway.url, secretKey, '0990000000');
    assert.ok(landedAt?.startsWith('https://shop.example.com/paid'), `${landedAt}\n${gateway.output}`);
    const [webhook] = await receiver.waitFor(1, 15_000);
    assert.equal(JSON.parse(webhook!.body).tx_ref, txRef);
    for (let round = 0; round < 20; round += 1) {
      const verified = await call(gateway.url, `/verify-payment/${txRef}`, { key: secretKey });
      assert.equal(verified.status, 200, `${verified.text}\n${gateway.output}`);
      assert.equal(verified.body.data.status, 'success');
    }
  });
});
