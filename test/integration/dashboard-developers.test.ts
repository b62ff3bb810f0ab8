import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

/** A secret key's standing with the API: 404 for a charge nobody made means the key was accepted. */
const keyStatus = async (gw: TestGateway, key: string) =>
  (await call(gw.url, '/verify-payment/no-such-charge', { key })).status;
const NEW_SECRET = /<code class="secret new-secret">([^<]+)<\/code>/;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard developers page (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let receiver: Receiver;

    before(async () => {
      gw = await startTestGateway(kind, { WORKER_INTERVAL: '100ms' });
      merchant = await gw.newMerchant('Chikondi Crafts');
      receiver = await startReceiver((n) =>
        n === 1 ? { status: 500, body: 'not yet' } : { status: 200, body: 'thanks' },
      );
    });
    after(async () => {
      await receiver.close();
      await gw.close();
    });

    const db = () => gw.gateway.database.db;
    const signedIn = (role: 'owner' | 'developer' | 'viewer', merchantId = merchant.id) =>
      signedInBrowser(gw, role, merchantId);
    const audit = (action: string) =>
      db()
        .selectFrom('audit_log')
        .selectAll()
        .where('merchant_id', '=', merchant.id)
        .where('action', '=', action)
        .execute();

    test('rolling a key with an overlap: the new secret is shown once, only its hash is kept, the old key stops when the overlap ends', async () => {
      const browser = await signedIn('developer');
      const before = await browser.get('/dashboard/developers');
      assert.equal(before.status, 200);
      assert.ok(before.text.includes(merchant.test_public_key), 'the public key is shown in full');
      assert.ok(!before.text.includes(merchant.test_secret_key), 'a secret key is never shown in full');
      assert.ok(
        before.text.includes(`${merchant.test_secret_key.slice(0, 13)}&#8230;`),
        'its visible prefix is, with an ellipsis',
      );
      assert.ok(!before.text.includes(merchant.live_public_key), 'only the page mode’s keys');

      const rolled = await browser.post('/dashboard/developers/keys/roll', { overlap: '3s' });
      assert.equal(rolled.status, 200, 'the new secret is the answer itself, not a redirect carrying it');
      assert.match(rolled.headers.get('cache-control') ?? '', /no-store/);
      const secret = NEW_SECRET.exec(rolled.text)?.[1];
      assert.match(secret ?? '', /^sec-test-[0-9A-Za-z]{32}$/);
      assert.match(rolled.text, /keep working until/);

      const stored = await db().selectFrom('api_keys').selectAll().where('merchant_id', '=', merchant.id).execute();
      assert.ok(
        stored.every((key) => key.token_hash !== secret && !JSON.stringify(key).includes(secret!)),
        'only the hash is stored',
      );

      assert.equal(await keyStatus(gw, secret!), 404, 'the new key works at once');
      assert.equal(await keyStatus(gw, merchant.test_secret_key), 404, 'the old one during the overlap');
      const expiry = stored.find(
        (key) => key.kind === 'secret' && key.mode === 'test' && key.expires_at !== null,
      )!.expires_at!;
      await sleep(Math.max(0, expiry - Date.now()) + 1_200);
      assert.equal(await keyStatus(gw, merchant.test_secret_key), 401, 'the old key stops after its overlap');
      assert.equal(await keyStatus(gw, secret!), 404);
      assert.equal(await keyStatus(gw, merchant.live_secret_key), 404, 'the other mode is untouched');

      const again = await browser.get('/dashboard/developers');
      assert.ok(!again.text.includes(secret!), 'the page does not show the new secret again');
      assert.ok(again.text.includes(secret!.slice(0, 12)));
      const [entry] = await audit('key.roll');
      assert.ok(entry && !entry.detail!.includes(secret!), 'the roll is audited without the secret');

      const now = await browser.post('/dashboard/developers/keys/roll', { overlap: '0' });
      const third = NEW_SECRET.exec(now.text)![1]!;
      await sleep(1_100);
      assert.equal(await keyStatus(gw, secret!), 401, '"0" stops the older keys at once');
      assert.equal(await keyStatus(gw, third), 404);
      assert.equal((await browser.post('/dashboard/developers/keys/roll', { overlap: 'soon' })).status, 422);
    });

    test('roles: a developer rolls keys and runs webhooks but cannot change settings or the team; a viewer can do none', async () => {
      const developer = await signedIn('developer');
      await developer.get('/dashboard/developers');
      assert.equal((await developer.post('/dashboard/settings', { name: 'Taken', receipts: 'on' })).status, 403);
      assert.equal(
        (await developer.post('/dashboard/settings/team/invite', { email: 'x@example.com', role: 'owner' })).status,
        403,
      );

      const viewer = await signedIn('viewer');
      const page = await viewer.get('/dashboard/developers');
      assert.equal(page.status, 200);
      assert.ok(
        !page.text.includes('/dashboard/developers/keys/roll') && !page.text.includes('/dashboard/developers/webhook'),
        'the viewer sees no forms',
      );
      for (const [path, form] of [
        ['/dashboard/developers/keys/roll', { overlap: '0' }],
        ['/dashboard/developers/webhook', { url: 'https://example.com/x' }],
        ['/dashboard/developers/webhook/secret', { overlap: '24h' }],
        ['/dashboard/developers/webhook/test', {}],
      ] as const) {
        assert.equal((await viewer.post(path, form)).status, 403, path);
      }
      assert.equal(await keyStatus(gw, merchant.live_secret_key), 404, 'nothing was rolled');
    });

    test('the webhook URL is validated as the CLI does, never private, and audited', async () => {
      const owner = await signedIn('owner');
      await owner.get('/dashboard/developers');
      for (const url of [
        'ftp://example.com/hook',
        'not a url',
        'http://10.0.0.8/hook',
        'http://[fd00::1]/hook',
        'https://169.254.169.254/latest',
      ]) {
        const refused = await owner.post('/dashboard/developers/webhook', { url });
        assert.equal(refused.status, 422, url);
        assert.match(refused.text, /class="error"/);
      }
      assert.equal(
        (
          await db()
            .selectFrom('merchants')
            .select('webhook_url')
            .where('id', '=', merchant.id)
            .executeTakeFirstOrThrow()
        ).webhook_url,
        null,
      );
      const saved = await owner.post('/dashboard/developers/webhook', { url: receiver.url });
      assert.equal(saved.status, 303);
      assert.equal(saved.location, '/dashboard/developers?done=url');
      assert.ok((await owner.get('/dashboard/developers')).text.includes(receiver.url));
      const [entry] = await audit('webhook.url_change');
      assert.deepEqual(JSON.parse(entry!.detail!), { from: null, to: receiver.url });
    });

    test('a test event reaches the receiver, signed with a rolled secret; its failed first try is retried from the log', async () => {
      const owner = await signedIn('owner');
      await owner.get('/dashboard/developers');
      await owner.post('/dashboard/developers/webhook', { url: '' });
      const nowhere = await owner.post('/dashboard/developers/webhook/test', {});
      assert.equal(nowhere.status, 422, 'no URL, no test event');
      assert.match(nowhere.text, /save one first/);
      assert.equal((await owner.post('/dashboard/developers/webhook', { url: receiver.url })).status, 303);
      const asked = await owner.get('/dashboard/developers/webhook/secret');
      assert.match(asked.text, /name="overlap" value="24h" checked/);
      const rolled = await owner.post('/dashboard/developers/webhook/secret', { overlap: '24h' });
      assert.equal(rolled.status, 200);
      const secret = NEW_SECRET.exec(rolled.text)![1]!;
      assert.match(secret, /^whsec_/);
      assert.ok(!(await owner.get('/dashboard/developers')).text.includes(secret), 'shown once');
      assert.equal((await audit('webhook.secret_roll')).length, 1);

      assert.equal(
        (await owner.post('/dashboard/developers/webhook/test', {})).location,
        '/dashboard/developers?done=test',
      );
      const [first] = await receiver.waitFor(1);
      const body = JSON.parse(first!.body);
      assert.equal(body.event_type, 'webhook.test');
      assert.equal(body.mode, 'test');
      assert.equal(
        first!.headers.signature,
        createHmac('sha256', secret).update(first!.body).digest('hex'),
        'signed with the new secret',
      );
      assert.equal((await audit('webhook.test_event')).length, 1);

      const delivery = await eventually('a first failed try', async () => {
        const row = await db()
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('merchant_id', '=', merchant.id)
          .executeTakeFirst();
        return row && row.attempts >= 1 && row.status === 'pending' ? row : undefined;
      });
      const log = await owner.get('/dashboard/developers?status=pending');
      assert.ok(log.text.includes(delivery.id));
      assert.ok(log.text.includes(`/dashboard/deliveries/${delivery.id}/retry`));
      assert.match(log.text, /HTTP 500 in \d+ ms/);
      assert.ok(
        log.text.includes('{\n  &quot;event_type&quot;: &quot;webhook.test&quot;,\n'),
        'the request body of the last try, escaped and indented a field a line',
      );
      assert.match(log.text, /No response body kept/, 'a loopback receiver’s answer is never stored');
      assert.ok(
        !(await owner.get('/dashboard/developers?status=delivered')).text.includes(delivery.id),
        'filtered by status',
      );
      assert.ok(
        !(await owner.get('/dashboard/developers?tx_ref=other-ref')).text.includes(delivery.id),
        'filtered by tx_ref',
      );
      assert.equal(
        (await owner.get('/dashboard/developers?status=%00&page=-4&charge_id=%22%3E')).status,
        200,
        'bad filters are ignored',
      );

      const retried = await owner.post(`/dashboard/deliveries/${delivery.id}/retry`, { back: '/dashboard/developers' });
      assert.equal(retried.location, `/dashboard/developers?retried=${delivery.id}`);
      await receiver.waitFor(2);
      await eventually(
        'the retried delivery',
        async () =>
          (
            await db()
              .selectFrom('webhook_deliveries')
              .select('status')
              .where('id', '=', delivery.id)
              .executeTakeFirst()
          )?.status === 'delivered' || undefined,
      );
      const live = await owner.get('/dashboard/developers');
      assert.match(live.text, /HTTP 200 in \d+ ms/);
    });
  });
}
