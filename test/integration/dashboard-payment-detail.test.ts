import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { merchantBalances } from '../../src/ledger/ledger-service.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { confirmFormFields } from '../helpers/dashboard.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';
import { chargeBody, eventually, initializeCharge, TEST_NUMBERS, verify } from '../helpers/mobile-money.ts';
import { payAtCheckout, payByCard } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { asChargeRef } from '../../src/shared/ids.ts';
import { moneyText } from '../../src/shared/money.ts';

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

    /** The payment's paid charge ref, for its refunds. */
    const paidChargeOf = async (id: string) =>
      (
        await db()
          .selectFrom('checkout_sessions')
          .select('paid_charge_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).paid_charge_id!;

    test('a refund is reviewed on a page of its own that refunds nothing; its Confirm refunds once, audited, and the balance and timeline show it', async () => {
      const { id } = await paidOnSecondTry();
      const paid = await paidChargeOf(id);
      const owner = await signedIn('owner');
      const before = await owner.get(`/dashboard/payments/${id}`);
      assert.match(before.text, /Already refunded MWK 0.00 of MWK 1,000.00/);
      assert.match(before.text, /<p class="warning">Refunds cannot be undone/);
      assert.match(before.text, /name="amount" value="" required>/, 'the amount is empty until the merchant types one');
      assert.match(
        before.text,
        /<button type="submit" class="secondary" name="full" value="1" formnovalidate>Full refund \(MWK 1,000.00\)<\/button>/,
      );
      const balanceBefore = await collection();
      const { mainMinor } = await merchantBalances(db(), merchant.id, 'test', 'MWK');

      const asked = await owner.post(`/dashboard/payments/${id}/refund`, { amount: '400', reason: 'One bag returned' });
      assert.equal(asked.status, 200, asked.text);
      assert.match(asked.text, /<h1>Confirm the refund<\/h1>/);
      for (const [term, value] of [
        ['Refund', '<strong>MWK 400.00</strong>'],
        ['To', 'Jane Banda \\(jane@example.com\\)'],
        ['Back to', 'Airtel Money \\+265990xxxx\\d\\d'],
        ['Refunded before', 'MWK 0.00'],
        ['Left to refund after this', '<strong>MWK 600.00</strong>'],
        ['Reason', 'One bag returned'],
        ['Taken from', 'Your test-mode collection balance'],
        ['Collection balance now', moneyText('MWK', balanceBefore).replace('.', '\\.')],
        [
          'Collection balance after',
          `<strong>${moneyText('MWK', balanceBefore - 388_00).replace('.', '\\.')}</strong>`,
        ],
        ['Fee given back to you', 'MWK 12.00'],
        ['Taken from your balance', 'MWK 388.00'],
        ['Main balance after', `<strong>${moneyText('MWK', mainMinor).replace('.', '\\.')}</strong>`],
      ])
        assert.match(asked.text, new RegExp(`<dt>${term}</dt><dd>${value}</dd>`), term);
      assert.match(asked.text, /<a class="cancel" href="\/dashboard\/payments\/[^"]+">Cancel<\/a>/);
      assert.deepEqual(await refundRows(paid), [], 'the first step refunds nothing');
      assert.equal(await collection(), balanceBefore, 'and moves no money');
      assert.equal((await auditRows('refund.create')).length, 0);

      const fields = confirmFormFields(asked.text, `/dashboard/payments/${id}/refund/confirm`);
      assert.deepEqual(fields, { amount: '400', full: '', reason: 'One bag returned', refunded: '0' });
      const posted = await owner.post(`/dashboard/payments/${id}/refund/confirm`, fields);
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

      const again = await owner.post(`/dashboard/payments/${id}/refund/confirm`, fields);
      assert.equal(again.status, 422, 'the same confirmation posted again');
      assert.match(
        again.text,
        /role="alert">The payment&#39;s refunds changed since this refund was reviewed, so nothing was refunded/,
      );
      assert.equal((await refundRows(paid)).length, 1, 'refunds once');
      assert.equal((await auditRows('refund.create')).length, 1);

      const after = await owner.get(posted.location!);
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
      assert.match(after.text, /name="amount" value="" required>/, 'empty again');
      assert.match(after.text, /Full refund \(MWK 600.00\)/, 'Full refund offers what is left');
    });

    test('an empty amount asks for one, a wrong one is refused, Full refund fills all that is left; nothing is refunded before Confirm', async () => {
      const { id } = await paidOnSecondTry();
      const paid = await paidChargeOf(id);
      const owner = await signedIn('owner');
      await owner.get(`/dashboard/payments/${id}`);
      const balance = await collection();
      for (const [amount, message] of [
        ['', 'Type the amount to refund, or choose Full refund.'],
        ['1700', 'The amount must not be greater than 1000, what is left to refund.'],
        ['abc', 'Type the amount to refund as a number, such as 500.'],
        ['0', 'The amount must be more than nothing.'],
        ['10.50', 'Refund whole amounts, or all that is left.'],
      ] as const) {
        for (const step of ['refund', 'refund/confirm']) {
          const refused = await owner.post(`/dashboard/payments/${id}/${step}`, { amount, reason: '', refunded: '0' });
          assert.equal(refused.status, 422, `${step}: ${amount}`);
          assert.ok(refused.text.includes(`role="alert">${message}`), `${step}: ${amount}: ${message}`);
          assert.ok(refused.text.includes(`name="amount" value="${amount}"`), 'the form keeps what was typed');
        }
      }
      const unreviewed = await owner.post(`/dashboard/payments/${id}/refund/confirm`, { amount: '100', reason: '' });
      assert.equal(unreviewed.status, 422, 'a confirmation that did not come from the confirmation page');
      assert.match(unreviewed.text, /role="alert">Review the refund before confirming it\./);

      const partial = await owner.post(`/dashboard/payments/${id}/refund`, { amount: '250', reason: 'Part of it' });
      await owner.post(
        `/dashboard/payments/${id}/refund/confirm`,
        confirmFormFields(partial.text, `/dashboard/payments/${id}/refund/confirm`),
      );
      const full = await owner.post(`/dashboard/payments/${id}/refund`, { amount: '', full: '1', reason: 'All of it' });
      assert.equal(full.status, 200, full.text);
      assert.match(full.text, /<dt>Refund<\/dt><dd><strong>MWK 750.00<\/strong><\/dd>/, 'all that is left');
      assert.match(full.text, /<dt>Left to refund after this<\/dt><dd><strong>MWK 0.00<\/strong><\/dd>/);
      const fields = confirmFormFields(full.text, `/dashboard/payments/${id}/refund/confirm`);
      assert.deepEqual(fields, { amount: '750', full: '1', reason: 'All of it', refunded: '25000' });
      assert.equal((await refundRows(paid)).length, 1, 'Full refund asks first too');
      const confirmed = await owner.post(`/dashboard/payments/${id}/refund/confirm`, fields);
      assert.equal(confirmed.status, 303, confirmed.text);
      assert.deepEqual((await refundRows(paid)).map((row) => row.amount_minor).sort(), [250_00, 750_00]);
      assert.equal(await collection(), balance - (1000_00 - 30_00), 'the whole payment less its fee, given back');
      assert.match((await owner.get(`/dashboard/payments/${id}`)).text, /This payment has been refunded in full/);
    });

    test('a confirmation drawn before another refund refunds nothing; a full refund of a first card payment is never refused for its fee', async () => {
      const { id } = await paidOnSecondTry();
      const paid = await paidChargeOf(id);
      const owner = await signedIn('owner');
      await owner.get(`/dashboard/payments/${id}`);
      const first = await owner.post(`/dashboard/payments/${id}/refund`, { amount: '100', reason: 'First tab' });
      const second = await owner.post(`/dashboard/payments/${id}/refund`, { amount: '200', reason: 'Second tab' });
      const action = `/dashboard/payments/${id}/refund/confirm`;
      assert.equal((await owner.post(action, confirmFormFields(first.text, action))).status, 303);
      const stale = await owner.post(action, confirmFormFields(second.text, action));
      assert.equal(stale.status, 422);
      assert.match(stale.text, /refunds changed since this refund was reviewed/);
      assert.deepEqual(
        (await refundRows(paid)).map((row) => row.amount_minor),
        [100_00],
      );

      const fresh = await gw.newMerchant('New Shop');
      const { txRef } = await payByCard(gw.url, fresh.test_secret_key);
      const freshOwner = await signedIn('owner', fresh.id);
      const page = await freshOwner.get(`/dashboard/payments/${await sessionId(txRef)}`);
      assert.match(page.text, /<dt>Collection balance<\/dt><dd>MWK 970.00<\/dd>/, 'the payment net of its fee');
      const beyond = await freshOwner.post(`/dashboard/payments/${await sessionId(txRef)}/refund`, {
        amount: '',
        full: '1',
        reason: '',
      });
      assert.equal(beyond.status, 200, 'the fee is given back, so the collection covers the rest');
      assert.match(beyond.text, /<dt>Fee given back to you<\/dt><dd>MWK 30.00<\/dd>/);
      assert.match(beyond.text, /<dt>Collection balance after<\/dt><dd><strong>MWK 0.00<\/strong><\/dd>/);
      assert.doesNotMatch(beyond.text, /exceeds the available balance/);
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
      assert.equal(
        (await viewer.post(`/dashboard/payments/${id}/refund/confirm`, { amount: '100', refunded: '0' })).status,
        403,
      );

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
      assert.equal(
        (await developer.post(`/dashboard/payments/${id}/refund/confirm`, { amount: '100', refunded: '0' })).status,
        403,
      );
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
        (await stranger.post(`/dashboard/payments/${id}/refund/confirm`, { amount: '100', refunded: '0' })).status,
        404,
      );
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
