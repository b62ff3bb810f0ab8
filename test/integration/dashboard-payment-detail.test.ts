import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { merchantBalances } from '../../src/ledger/ledger-service.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';
import { chargeBody, eventually, initializeCharge, TEST_NUMBERS, verify } from '../helpers/mobile-money.ts';
import { payAtCheckout, payByCard } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { asChargeRef } from '../../src/shared/ids.ts';

/**
 * One payment's dashboard page over HTTP: what it shows (a card by its last four digits only),
 * the timeline of attempts, webhook deliveries and receipts, a refund through its form (the same
 * service as the API, its audit entry in the same transaction), and who may see and do what: a
 * viewer cannot refund, a developer can retry but not refund, and another merchant's user or the
 * other mode finds nothing. Webhooks retry once after 100 ms, so a delivery to a receiver that
 * answers 500 fails within a second.
 */
for (const kind of DATABASE_KINDS) {
  describe(`the payment detail page (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let other: MerchantCredentials;
    let receiver: Receiver;
    let answer = 500;

    before(async () => {
      gw = await startTestGateway(kind, {
        WEBHOOK_RETRY_SCHEDULE: '100ms',
        WORKER_INTERVAL: '100ms',
        ...LIVE_SESSIONS_ONLY,
      });
      receiver = await startReceiver(() => ({ status: answer, body: answer === 200 ? 'ok' : 'receiver down' }));
      merchant = await gw.newMerchant('Chikondi Crafts');
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
      other = await gw.newMerchant('Other Shop');
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await receiver.close();
      await gw.close();
    });

    const db = () => gw.gateway.database.db;
    const signedIn = (role: 'owner' | 'developer' | 'viewer', merchantId = merchant.id) =>
      signedInBrowser(gw, role, merchantId);
    const sessionId = async (txRef: string) =>
      (await db().selectFrom('checkout_sessions').select('id').where('tx_ref', '=', txRef).executeTakeFirstOrThrow())
        .id;
    const refundRows = (chargeRef: string) =>
      db().selectFrom('refunds').selectAll().where('charge_ref', '=', asChargeRef(chargeRef)).execute();
    const auditRows = (action: string) =>
      db()
        .selectFrom('audit_log')
        .selectAll()
        .where('merchant_id', '=', merchant.id)
        .where('action', '=', action)
        .execute();
    const collection = async () => (await merchantBalances(db(), merchant.id, 'test', 'MWK')).collectionMinor;
    /** The payment's latest webhook delivery: a failed attempt has its own before the success's. */
    const deliveryOf = (txRef: string) =>
      db()
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tx_ref', '=', txRef)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
    /** A checkout session paid by mobile money on its second attempt, the first having failed; its tx_ref and session id. */
    async function paidOnSecondTry(): Promise<{ txRef: string; id: string }> {
      const body = currentBody();
      const created = await call(gw.url, '/payment', { key: merchant.test_secret_key, body });
      assert.equal(created.status, 201, created.text);
      await payAtCheckout(gw.url, created.body.data.checkout_url, TEST_NUMBERS.airtelFailed);
      await payAtCheckout(gw.url, created.body.data.checkout_url, TEST_NUMBERS.airtelSuccess);
      return { txRef: String(body.tx_ref), id: await sessionId(String(body.tx_ref)) };
    }
    /** Waits for the payment's webhook to have failed (the receiver answering 500) and its receipts to be sent. */
    async function settledOutside(txRef: string) {
      const delivery = await eventually('the webhook to fail', async () => {
        const found = await deliveryOf(txRef);
        return found?.status === 'failed' && found;
      });
      await eventually('the receipts to go', async () => {
        const emails = await db()
          .selectFrom('emails')
          .select('status')
          .where('event_id', '=', delivery.event_id)
          .execute();
        return emails.length > 0 && emails.every((email) => email.status === 'sent');
      });
      return delivery;
    }

    test('shows amount, fee, net and the card by brand and last four digits only, and a timeline of the attempt, its webhook and its receipts', async () => {
      const { txRef } = await payByCard(gw.url, merchant.test_secret_key);
      const id = await sessionId(txRef);
      const delivery = await settledOutside(txRef);
      const page = await (await signedIn('owner')).get(`/dashboard/payments/${id}`);
      assert.equal(page.status, 200, page.text);
      for (const shown of [
        'MWK 1,000.00',
        'MWK 30.00',
        'MWK 970.00',
        txRef,
        'Jane Banda',
        'jane@example.com',
        'VISA ending 4242',
        'Attempt ch_',
      ])
        assert.ok(page.text.includes(shown), `the page shows ${shown}`);
      assert.doesNotMatch(page.text, /4242[\s-]?4242[\s-]?4242[\s-]?4242/, 'never the full card number');
      assert.match(
        page.text,
        /<dt>Method<\/dt><dd>VISA ending 4242<\/dd>/,
        'the method by brand and last four digits only',
      );
      const timeline = /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(page.text)?.[1] ?? '';
      assert.match(timeline, /Attempt ch_\w+<\/strong> by VISA ending 4242 <span class="status status-success">/);
      assert.match(timeline, new RegExp(`Webhook ${delivery.id} to .*status-failed">Failed</span> after 2 attempts`));
      assert.match(timeline, /HTTP 500 in \d+ ms<\/li>/, "a loopback receiver's answer is not kept");
      assert.match(timeline, /Request: event_type: checkout.payment, status: success/);
      assert.match(timeline, /Receipt to the customer \(jane@example.com\) <span class="status status-sent">Sent/);
      assert.match(timeline, /<strong>Log<\/strong>/);
      assert.match(
        page.text,
        /<time datetime="[^"]+">\d{1,2} \w+ \d{4} at \d{2}:\d{2} CAT<\/time>/,
        'times in the gateway time zone (Africa/Blantyre)',
      );
    });

    test('a failed attempt and the successful one are both in the timeline', async () => {
      const { id } = await paidOnSecondTry();
      const page = await (await signedIn('viewer')).get(`/dashboard/payments/${id}`);
      const attempts = [
        ...page.text.matchAll(
          /Attempt ch_\w+<\/strong> by Airtel Money \+265990xxxx\d\d <span class="status status-(\w+)">/g,
        ),
      ].map((match) => match[1]);
      assert.deepEqual(attempts, ['failed', 'success']);
    });

    test("a public receiver's answer is shown as an escaped excerpt", async () => {
      const { txRef, id } = await paidOnSecondTry();
      const delivery = await settledOutside(txRef);
      const answer = `<script>alert(1)</script>${'x'.repeat(300)}`;
      await db()
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          attempted_at: Date.now(),
          status_code: 503,
          latency_ms: 12,
          response_body: answer,
          error: null,
        })
        .execute();
      const page = await (await signedIn('viewer')).get(`/dashboard/payments/${id}`);
      assert.match(
        page.text,
        new RegExp(`HTTP 503 in 12 ms <code>&lt;script&gt;alert\\(1\\)&lt;/script&gt;x{175}</code>`),
        'the first 200 characters, escaped',
      );
      assert.ok(!page.text.includes('<script>'), 'nothing the receiver said runs');
    });

    test('a partial refund through the form lowers the balance, shows in the timeline and writes one audit entry; too much is refused with nothing written', async () => {
      const { id } = await paidOnSecondTry();
      const paid = (
        await db()
          .selectFrom('checkout_sessions')
          .select('paid_charge_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).paid_charge_id!;
      const owner = await signedIn('owner');
      const before = await owner.get(`/dashboard/payments/${id}`);
      assert.match(before.text, /Already refunded MWK 0.00 of MWK 1,000.00/);
      assert.match(before.text, /<p class="warning">Refunds cannot be undone/);
      assert.match(before.text, /name="amount" value="1000"/, 'the amount defaults to all that is left');
      const balanceBefore = await collection();

      const posted = await owner.post(`/dashboard/payments/${id}/refund`, {
        amount: '400',
        reason: 'One bag returned',
      });
      assert.equal(posted.status, 303, posted.text);
      const [refund] = await refundRows(paid);
      assert.equal(refund?.amount_minor, 400_00);
      assert.equal(posted.location, `/dashboard/payments/${id}?refunded=${refund.refund_id}`);
      assert.equal(
        await collection(),
        balanceBefore - (400_00 - 12_00),
        "the refund less its share of the payment's fee (3 % of 400), which is given back (REFUND_RETURNS_FEE)",
      );
      const audit = await auditRows('refund.create');
      assert.deepEqual(
        audit.map((row) => row.subject),
        [refund.refund_id],
      );
      const { charge_id: chargeId } = await db()
        .selectFrom('charges')
        .select('charge_id')
        .where('id', '=', asChargeRef(paid))
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(audit[0]!.detail!), { charge_id: chargeId, amount: 400, currency: 'MWK' });

      const after = await owner.get(posted.location);
      assert.match(after.text, new RegExp(`role="status">Refund ${refund.refund_id} of MWK 400.00 requested`));
      assert.match(after.text, /Already refunded MWK 400.00 of MWK 1,000.00/);
      assert.match(
        after.text,
        new RegExp(
          `<strong>Refund ${refund.refund_id}</strong> of MWK 400.00 <span class="status status-(pending|success)">[\\s\\S]*One bag returned`,
        ),
      );
      assert.match(
        after.text,
        new RegExp(`<strong>Log</strong> Refund ${refund.refund_id} of MWK 400.00 requested: One bag returned`),
      );
      assert.equal(
        after.text.match(new RegExp(`<strong>Log</strong> Refund ${refund.refund_id} of MWK 400.00 requested`, 'g'))
          ?.length,
        1,
        'the line written on the charge and the session is shown once',
      );
      assert.match(after.text, /name="amount" value="600"/);

      const balanceNow = await collection();
      for (const [amount, message] of [
        ['700', 'The amount must not be greater than 600, what is left to refund.'],
        ['abc', 'Type the amount to refund as a number, such as 500.'],
        ['0', 'The amount must be more than nothing.'],
        ['10.50', 'Refund whole amounts, or all that is left.'],
      ] as const) {
        const refused = await owner.post(`/dashboard/payments/${id}/refund`, { amount, reason: '' });
        assert.equal(refused.status, 422, amount);
        assert.ok(refused.text.includes(`role="alert">${message}`), `${amount}: ${message}`);
        assert.ok(refused.text.includes(`name="amount" value="${amount}"`), 'the form keeps what was typed');
      }
      assert.equal((await refundRows(paid)).length, 1, 'nothing refunded');
      assert.equal((await auditRows('refund.create')).length, 1, 'nothing audited');
      assert.equal(await collection(), balanceNow);
    });

    test('a viewer sees no refund form and no Retry button, and the refund POST is refused; a developer may retry but not refund', async () => {
      const { txRef, id } = await paidOnSecondTry();
      const paid = (
        await db()
          .selectFrom('checkout_sessions')
          .select('paid_charge_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).paid_charge_id!;
      const viewer = await signedIn('viewer');
      const page = await viewer.get(`/dashboard/payments/${id}`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.text, /\/refund"/);
      assert.doesNotMatch(page.text, /\/retry"/);
      assert.match(page.text, /Your role cannot refund payments/);
      assert.equal((await viewer.post(`/dashboard/payments/${id}/refund`, { amount: '100' })).status, 403);

      const developer = await signedIn('developer');
      const seen = await developer.get(`/dashboard/payments/${id}`);
      assert.doesNotMatch(seen.text, /\/refund"/);
      await eventually('the delivery', () => deliveryOf(txRef));
      const withDelivery = await developer.get(`/dashboard/payments/${id}`);
      assert.match(
        withDelivery.text,
        new RegExp(
          `action="/dashboard/deliveries/msg_\\w+/retry"><input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="back" value="/dashboard/payments/${id}">`,
        ),
      );
      assert.equal((await developer.post(`/dashboard/payments/${id}/refund`, { amount: '100' })).status, 403);
      assert.deepEqual(await refundRows(paid), [], 'nothing refunded');
      const delivery = (await deliveryOf(txRef))!;
      assert.equal(
        (await developer.post(`/dashboard/deliveries/${delivery.id}/retry`, { back: `/dashboard/payments/${id}` }))
          .location,
        `/dashboard/payments/${id}?retried=${delivery.id}`,
        'the developer may retry',
      );
      assert.equal(
        (await viewer.post(`/dashboard/deliveries/${delivery.id}/retry`, { back: `/dashboard/payments/${id}` })).status,
        403,
        'the viewer may not',
      );
    });

    test('Retry sends a failed webhook again, to a receiver that now answers 200, and it is delivered', async () => {
      answer = 500;
      const { txRef, id } = await paidOnSecondTry();
      const delivery = await settledOutside(txRef);
      const owner = await signedIn('owner');
      const failed = await owner.get(`/dashboard/payments/${id}`);
      assert.match(failed.text, new RegExp(`Webhook ${delivery.id} to .*status-failed">Failed</span>`));
      answer = 200;
      try {
        const retried = await owner.post(`/dashboard/deliveries/${delivery.id}/retry`, {
          back: `/dashboard/payments/${id}`,
        });
        assert.equal(retried.location, `/dashboard/payments/${id}?retried=${delivery.id}`);
        const notice = await owner.get(retried.location!);
        assert.match(notice.text, new RegExp(`role="status">Webhook ${delivery.id} is queued to be sent again`));
        await eventually('the delivery to be delivered', async () => (await deliveryOf(txRef))?.status === 'delivered');
        const delivered = await owner.get(`/dashboard/payments/${id}`);
        assert.match(
          delivered.text,
          new RegExp(`Webhook ${delivery.id} to .*status-delivered">Delivered</span> after 3 attempts`),
        );
        assert.match(delivered.text, /HTTP 200 in \d+ ms<\/li>/);
      } finally {
        answer = 500;
      }
    });

    test("another merchant's user, and the other mode, find nothing by the payment's id", async () => {
      const { txRef, id } = await paidOnSecondTry();
      const stranger = await signedIn('owner', other.id);
      const page = await stranger.get(`/dashboard/payments/${id}`);
      assert.equal(page.status, 404);
      assert.match(page.text, /No such payment/);
      assert.ok(!page.text.includes(txRef) && !page.text.includes('1,000.00'), 'nothing of the payment is shown');
      await stranger.get('/dashboard');
      assert.equal((await stranger.post(`/dashboard/payments/${id}/refund`, { amount: '100' })).status, 404);
      assert.equal(
        (
          await db()
            .selectFrom('refunds')
            .select('id')
            .where('merchant_id', '=', merchant.id)
            .where('reason', 'is', null)
            .execute()
        ).length,
        0,
      );

      const liveBody = currentBody();
      const live = await call(gw.url, '/payment', { key: merchant.live_secret_key, body: liveBody });
      assert.equal(live.status, 201, live.text);
      const liveId = await sessionId(String(liveBody.tx_ref));
      const owner = await signedIn('owner');
      assert.equal(
        (await owner.get(`/dashboard/payments/${liveId}`)).status,
        404,
        'a live payment is not on a test page',
      );
      assert.equal((await owner.post('/dashboard/mode', { mode: 'live', back: '/dashboard' })).status, 303);
      assert.equal((await owner.get(`/dashboard/payments/${liveId}`)).status, 200, 'the live page shows it');
      assert.equal((await owner.get(`/dashboard/payments/${id}`)).status, 404, 'and not the test payment');
    });

    test('a direct charge opens by its charge_id, with its phone number as stored (masked)', async () => {
      const body = chargeBody();
      assert.equal((await initializeCharge(gw, merchant.test_secret_key, body)).status, 201);
      assert.equal(
        (await verify(gw, merchant.test_secret_key, String(body.charge_id), 'success')).body.data.status,
        'success',
      );
      const owner = await signedIn('owner');
      const page = await owner.get(`/dashboard/payments/${String(body.charge_id)}`);
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /Charge id<\/dt><dd>charge-/);
      assert.match(page.text, /Phone<\/dt><dd>\+265990xxxx00/);
      assert.doesNotMatch(page.text, /0990000000|265990000000/, 'the full number is never shown');
      assert.equal((await owner.get('/dashboard/payments/no-such-payment')).status, 404);
    });
  });
}
