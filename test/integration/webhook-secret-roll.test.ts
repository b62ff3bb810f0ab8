import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { before, after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { openDatabase } from '../../src/db/database.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.ts';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { formatHumanDate } from '../../src/shared/time.ts';
import { fakeClock } from '../helpers/clock.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import type { DashboardBrowser } from '../helpers/dashboard.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { insertOldMerchant } from '../helpers/old-databases.ts';
import { startReceiver, type Receiver, type Received } from '../helpers/receiver.ts';

const NEW_SECRET = /<code class="secret new-secret">([^<]+)<\/code>/;
const HOUR = 60 * 60_000;
const START = Date.UTC(2026, 11, 1, 10, 0, 0);

/**
 * The Standard Webhooks check of one `v1,<base64>` signature, written from the standard rather
 * than taken from our signer: HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the base64 part
 * of the secret after `whsec_`.
 */
function standardSignatureOf(secret: string, webhook: Received): Buffer {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const { 'webhook-id': id, 'webhook-timestamp': timestamp } = webhook.headers;
  return createHmac('sha256', key).update(`${id}.${timestamp}.${webhook.body}`).digest();
}

/** Which of the secrets made each of the webhook's Standard Webhooks signatures, in the header's order. */
function signers(webhook: Received, secrets: Record<string, string>): string[] {
  return String(webhook.headers['webhook-signature'])
    .split(' ')
    .map((part) => {
      const [version, value] = part.split(',');
      assert.equal(version, 'v1');
      const signature = Buffer.from(value!, 'base64');
      const signer = Object.entries(secrets).find(([, secret]) => {
        const expected = standardSignatureOf(secret, webhook);
        return expected.length === signature.length && timingSafeEqual(expected, signature);
      });
      return signer?.[0] ?? 'unknown';
    });
}

/**
 * Rolling a mode's webhook secret from the developers page: asked for on a page of its own, with
 * an overlap during which every webhook carries a Standard Webhooks signature with each secret
 * (PayChangu's one-value `Signature` with the new one), and only the new one's after it; test and
 * live roll apart. Business time is a fake clock moved past the overlap.
 */
for (const kind of DATABASE_KINDS) {
  describe(`rolling the webhook secret (${kind})`, () => {
    const clock = fakeClock(START);
    const ctx = useTestGateway(kind, { WORKER_INTERVAL: '50ms' }, clock);
    let receiver: Receiver;

    before(async () => {
      receiver = await startReceiver();
      await updateMerchantSettings(
        ctx.gw.gateway.database.db,
        ctx.merchant.id,
        { webhookUrl: receiver.url },
        clock.now(),
      );
    });
    after(() => receiver.close());

    const db = () => ctx.gw.gateway.database.db;
    const secretRow = (mode: 'test' | 'live') =>
      db()
        .selectFrom('webhook_secrets')
        .selectAll()
        .where('merchant_id', '=', ctx.merchant.id)
        .where('mode', '=', mode)
        .executeTakeFirstOrThrow();
    /** Sends a test event from the developers page in the browser's mode; the webhook as received. */
    async function testWebhook(browser: DashboardBrowser): Promise<Received> {
      const count = receiver.received.length;
      await browser.get('/dashboard/developers');
      assert.equal((await browser.post('/dashboard/developers/webhook/test', {})).status, 303);
      return (await receiver.waitFor(count + 1))[count]!;
    }

    test('the roll asks first; during the overlap webhooks carry both signatures, after it only the new one', async () => {
      const original = ctx.merchant.webhook_secret;
      const owner = await signedInBrowser(ctx.gw, 'owner', ctx.merchant.id);
      const page = await owner.get('/dashboard/developers');
      assert.match(
        page.text,
        /<a class="button" href="\/dashboard\/developers\/webhook\/secret">Roll the test webhook secret/,
      );
      assert.doesNotMatch(page.text, /action="\/dashboard\/developers\/webhook\/secret"/, 'no one-click roll');

      const asked = await owner.get('/dashboard/developers/webhook/secret');
      assert.equal(asked.status, 200);
      assert.match(asked.text, /Roll the test webhook secret\?/);
      assert.match(
        asked.text,
        /<input type="radio" name="overlap" value="24h" checked> 24 hours/,
        '24 hours unless changed',
      );
      for (const value of ['0', '1h', '3d', '7d'])
        assert.match(asked.text, new RegExp(`name="overlap" value="${value}">`));
      assert.match(asked.text, /<a class="cancel" href="\/dashboard\/developers">Cancel<\/a>/);
      assert.equal((await secretRow('test')).secret, original, 'asking rolls nothing');

      const refused = await owner.post('/dashboard/developers/webhook/secret', { overlap: '5m' });
      assert.equal(refused.status, 422, 'only the offered overlaps');
      assert.match(refused.text, /Choose how long the current secret keeps signing/);
      assert.equal((await owner.post('/dashboard/developers/webhook/secret', {})).status, 422, 'nor none at all');
      assert.equal((await secretRow('test')).secret, original);

      const rolled = await owner.post('/dashboard/developers/webhook/secret', { overlap: '1h' });
      assert.equal(rolled.status, 200, rolled.text);
      const secret = NEW_SECRET.exec(rolled.text)?.[1];
      assert.match(secret ?? '', /^whsec_/);
      const until = formatHumanDate(START + HOUR, 'Africa/Blantyre');
      assert.match(until, /CAT$/, "the gateway's time zone");
      assert.ok(rolled.text.includes(`Until ${until}`), 'the page says until when the old secret signs');
      const row = await secretRow('test');
      assert.deepEqual(
        [row.secret, row.previous_secret, row.previous_until],
        [secret, original, START + HOUR],
        'the old secret kept, with the end of its overlap',
      );
      assert.equal((await secretRow('live')).secret, original, 'the live secret is not rolled');
      const [audit] = await db()
        .selectFrom('audit_log')
        .select('detail')
        .where('merchant_id', '=', ctx.merchant.id)
        .where('action', '=', 'webhook.secret_roll')
        .execute();
      assert.deepEqual(JSON.parse(audit!.detail!), {
        mode: 'test',
        previous_signs_until: new Date(START + HOUR).toISOString(),
      });
      const during = await owner.get('/dashboard/developers');
      assert.ok(during.text.includes(`overlap is running: until ${until}, test-mode webhooks`), 'the page shows it');

      clock.advance(29 * 60_000);
      const both = await testWebhook(owner);
      assert.deepEqual(signers(both, { new: secret!, old: original }), ['new', 'old'], 'one signature with each');
      assert.equal(verifyWebhook(both.body, both.headers, secret!, { now: clock.now() }).event_type, 'webhook.test');
      assert.equal(verifyWebhook(both.body, both.headers, original, { now: clock.now() }).event_type, 'webhook.test');
      assert.equal(
        both.headers.signature,
        createHmac('sha256', secret!).update(both.body).digest('hex'),
        'Signature holds one value: the new secret’s',
      );

      clock.advance(31 * 60_000 + 1_000);
      // Past the overlap, and past the 30 minutes unused that end a session, by the same clock.
      const later = await signedInBrowser(ctx.gw, 'owner', ctx.merchant.id);
      const after = await testWebhook(later);
      assert.deepEqual(signers(after, { new: secret!, old: original }), ['new'], 'after the overlap, the new one only');
      assert.equal(verifyWebhook(after.body, after.headers, secret!, { now: clock.now() }).event_type, 'webhook.test');
      assert.throws(
        () => verifyWebhook(after.body, after.headers, original, { now: clock.now() }),
        /No webhook signature/,
      );
      assert.equal(
        verifyWebhook(after.body, after.headers, [original, secret!], { now: clock.now() }).event_type,
        'webhook.test',
        'a receiver holding both secrets accepts it',
      );
      assert.ok(!(await later.get('/dashboard/developers')).text.includes('overlap is running'));
    });

    test('test and live roll apart; a roll with no overlap stops the old secret at once', async () => {
      const testSecret = (await secretRow('test')).secret;
      const liveBefore = await secretRow('live');
      const owner = await signedInBrowser(ctx.gw, 'owner', ctx.merchant.id);
      await owner.get('/dashboard/developers');
      assert.equal((await owner.post('/dashboard/mode', { mode: 'live', back: '/dashboard/developers' })).status, 303);
      const asked = await owner.get('/dashboard/developers/webhook/secret');
      assert.match(asked.text, /Roll the live webhook secret\?/);
      assert.match(asked.text, /live: the test secret is not changed/);
      const rolled = await owner.post('/dashboard/developers/webhook/secret', { overlap: '0' });
      const live = NEW_SECRET.exec(rolled.text)![1]!;
      assert.match(rolled.text, /The previous secret stopped signing now/);
      const liveAfter = await secretRow('live');
      assert.deepEqual([liveAfter.secret, liveAfter.previous_secret, liveAfter.previous_until], [live, null, null]);
      assert.notEqual(live, liveBefore.secret);
      assert.equal((await secretRow('test')).secret, testSecret, 'the test secret is not rolled');

      // Live webhooks never reach a loopback receiver: the test mode's show that each mode signs with its own.
      await owner.post('/dashboard/mode', { mode: 'test', back: '/dashboard/developers' });
      const webhook = await testWebhook(owner);
      assert.deepEqual(signers(webhook, { test: testSecret, live, oldLive: liveBefore.secret }), ['test']);
    });

    test('a viewer cannot open the roll page nor roll', async () => {
      const viewer = await signedInBrowser(ctx.gw, 'viewer', ctx.merchant.id);
      await viewer.get('/dashboard/developers');
      assert.equal((await viewer.get('/dashboard/developers/webhook/secret')).status, 403);
      const before = await secretRow('test');
      assert.equal((await viewer.post('/dashboard/developers/webhook/secret', { overlap: '24h' })).status, 403);
      assert.deepEqual(await secretRow('test'), before);
    });
  });

  test(`upgrading to migration 0023 gives both modes of a merchant the secret it had (${kind})`, async () => {
    const throwaway = freshDatabase(kind);
    const database = await openDatabase(throwaway.url);
    try {
      await migrateTo(database, '0020_team_invitations');
      const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const id = await insertOldMerchant(database.db, secret, START);
      assert.ok((await migrateToLatest(database)).includes('0023_webhook_secrets_per_mode'));
      const rows = await database.db
        .selectFrom('webhook_secrets')
        .selectAll()
        .where('merchant_id', '=', id)
        .orderBy('mode')
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.mode, row.secret, row.previous_secret, row.previous_until]),
        [
          ['live', secret, null, null],
          ['test', secret, null, null],
        ],
      );
      const columns = (await database.db.introspection.getTables()).find((table) => table.name === 'merchants')!;
      assert.ok(
        !columns.columns.some((column) => column.name === 'webhook_secret'),
        'the merchant keeps no secret of its own',
      );
    } finally {
      await database.close();
      await throwaway.drop();
    }
  });
}
