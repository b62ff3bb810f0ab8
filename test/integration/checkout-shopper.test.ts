import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { alertOf, CheckoutClient, textOf } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';

/**
 * The hard moments of a shopper on the hosted page, over plain HTTP as a browser without
 * JavaScript meets them (test/browser/ has what the page's script adds): a prompt that never
 * came, cancelling, a currency mobile money does not take, and times in the gateway's zone.
 */
const PAYS = { airtel: '0990000000', tnm: '0899817565' };
const FAILS = { airtel: '0990000001' };

async function openSession(gw: TestGateway, key: string, overrides: Record<string, unknown> = {}) {
  const body = currentBody(overrides);
  const created = await call(gw.url, '/payment', { key, body });
  assert.equal(created.status, 201, created.text);
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  const client = new CheckoutClient(gw.url);
  const page = await client.get(pagePath);
  assert.equal(page.status, 200);
  return { txRef: String(body.tx_ref), pagePath, client, page, id: pagePath.split('/').pop()! };
}

for (const kind of DATABASE_KINDS) {
  describe(`"Didn't get a prompt? Use a different number" on ${kind}`, () => {
    // Long enough for the customer to give up on the first request before it is approved.
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1500ms', WORKER_INTERVAL: '50ms' });
    const db = (): Kysely<DB> => ctx.gw.gateway.database.db;
    const sessionRow = (id: string) =>
      db().selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const chargeRow = (chargeId: string) =>
      db().selectFrom('charges').selectAll().where('charge_id', '=', chargeId).executeTakeFirstOrThrow();
    const verify = async (txRef: string) =>
      (await call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key })).body.data;

    async function attempt(session: Awaited<ReturnType<typeof openSession>>, mobile: string) {
      const posted = await session.client.post(`${session.pagePath}/pay/mobile-money`, { mobile, operator: '' });
      assert.equal(posted.status, 303, alertOf(posted));
      const path = new URL(posted.location!).pathname;
      return { path, chargeId: path.split('/').pop()! };
    }

    test('the waiting page names the number, the time waited and what is usual, and offers another number', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const { path } = await attempt(session, PAYS.tnm);
      const waiting = await session.client.get(path);
      assert.equal(waiting.status, 200);
      const text = textOf(waiting.text);
      assert.match(
        text,
        /Approve the payment on your phone MWK 1,000.00 We sent a payment request to TNM Mpamba 0899xxxx65 Enter your PIN/,
        'without JavaScript the masked number shows (the full one was never stored)',
      );
      assert.match(text, /0:0\d so far · it usually takes under a minute/);
      assert.match(
        waiting.text,
        /<noscript><meta http-equiv="refresh" content="3"><\/noscript>/,
        'the time and outcome refresh without JavaScript',
      );
      assert.match(text, /Didn’t get a prompt\? Use a different number/);
      assert.match(
        waiting.text,
        new RegExp(`<form method="post" action="${path}/abandon"><input type="hidden" name="csrf"`),
      );
    });

    test("using a different number pays the session once; the set-aside request's late approval is refunded in full", async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const first = await attempt(session, PAYS.tnm);
      await session.client.get(first.path);
      const setAside = await session.client.post(`${first.path}/abandon`, {});
      assert.equal(setAside.status, 303);
      assert.equal(new URL(setAside.location!).pathname, session.pagePath, 'back to the form, not cancelled');
      const afterSetAside = await sessionRow(session.id);
      assert.equal(afterSetAside.status, 'pending');
      assert.equal(afterSetAside.pending_charge_id, null, 'the slot is free for the next attempt');
      assert.equal((await chargeRow(first.chargeId)).status, 'pending', 'the request itself may still be approved');
      assert.deepEqual(
        await (await fetch(`${ctx.gw.url}${first.path}/status`)).json(),
        { status: 'pending', next_url: first.path },
        'a tab still waiting on it moves on',
      );
      const stale = await session.client.get(first.path);
      assert.equal(stale.status, 303);
      assert.equal(new URL(stale.location!).pathname, session.pagePath);

      const second = await attempt(session, PAYS.airtel);
      await eventually('the session to be paid', async () => (await sessionRow(session.id)).status === 'success');
      const paid = await sessionRow(session.id);
      assert.equal(paid.paid_charge_id, (await chargeRow(second.chargeId)).id, 'paid by the attempt in flight');
      const abandoned = await eventually("the first request's approval", async () => {
        const row = await chargeRow(first.chargeId);
        return row.status === 'success' && row;
      });
      const refund = await eventually(
        'its refund',
        async () =>
          (await db().selectFrom('refunds').selectAll().where('charge_ref', '=', abandoned.id).executeTakeFirst()) ??
          null,
      );
      assert.equal(refund.amount_minor, abandoned.amount_minor, 'refunded in full');
      assert.equal(abandoned.fee_minor, 0);
      const data = await verify(session.txRef);
      assert.equal(data.status, 'success');
      assert.equal(data.number_of_attempts, 2);
      assert.equal(data.authorization.provider, 'Airtel Money');
      const logs = data.logs.map((log: { message: string }) => log.message).join(' | ');
      assert.match(
        logs,
        /The customer set aside the payment request to TNM Mpamba \(\+265899xxxx65\) to pay another way/,
      );
      assert.match(
        logs,
        /succeeded after the customer had moved on to another attempt; it was not counted and refund rf_\w+ gives it back/,
      );
      const events = await db().selectFrom('events').select('payload').where('subject_id', '=', session.id).execute();
      assert.deepEqual(
        events.map((event) => JSON.parse(event.payload).status),
        ['success'],
        'one payment event: the counted one',
      );
    });

    test('a set-aside request that fails later is not counted against the session', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const first = await attempt(session, FAILS.airtel);
      assert.equal((await session.client.post(`${first.path}/abandon`, {})).status, 303);
      await eventually(
        'the set-aside request to fail',
        async () => (await chargeRow(first.chargeId)).status === 'failed',
      );
      const row = await sessionRow(session.id);
      assert.equal(row.failed_attempts, 0);
      assert.equal(row.status, 'pending');
      assert.equal(
        (await db().selectFrom('events').select('id').where('subject_id', '=', session.id).execute()).length,
        0,
        'no failed-attempt webhook for it',
      );
      const page = await session.client.get(session.pagePath);
      assert.equal(alertOf(page), '', 'nothing to warn about on the form');
    });

    test('setting aside needs the form token, and only ever frees the attempt it names', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const first = await attempt(session, PAYS.tnm);
      const forged = await session.client.post(`${first.path}/abandon`, { csrf: 'A'.repeat(32) });
      assert.equal(forged.status, 403);
      assert.equal(
        (await sessionRow(session.id)).pending_charge_id,
        (await chargeRow(first.chargeId)).id,
        'a forged form changes nothing',
      );
      assert.equal((await session.client.post(`${first.path}/abandon`, {})).status, 303);
      const second = await attempt(session, PAYS.airtel);
      const again = await session.client.post(`${first.path}/abandon`, {});
      assert.equal(again.status, 303);
      assert.equal(
        (await sessionRow(session.id)).pending_charge_id,
        (await chargeRow(second.chargeId)).id,
        'setting aside an old request leaves the new one in flight',
      );
      const unknown = await session.client.post(`${session.pagePath}/attempts/ch_nothing/abandon`, {});
      assert.equal(unknown.status, 404);
      await eventually('the session to be paid', async () => (await sessionRow(session.id)).status === 'success');
    });

    test('a card waiting for the issuer is not set aside', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const posted = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '5555555555554444',
        expiry: '12/30',
        cvv: '123',
      });
      const cardPath = new URL(posted.location!).pathname;
      const otpPage = await session.client.get(cardPath);
      assert.match(
        textOf(otpPage.text),
        /confirm paying MWK 1,000\.00 with Mastercard •••• 4444 ?\./,
        'the card as its holder knows it: brand and last four',
      );
      assert.ok(!otpPage.text.includes('555555'), 'no more of the number than the last four');
      assert.ok(!otpPage.text.includes('/abandon'));
      assert.equal((await session.client.post(`${cardPath}/abandon`, {})).status, 303);
      assert.equal((await sessionRow(session.id)).pending_charge_id, (await chargeRow(cardPath.split('/').pop()!)).id);
    });
  });

  describe(`cancelling, currencies and the page's trust marks on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '30s' });
    const verify = async (txRef: string) =>
      (await call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key })).body.data;

    test('cancel asks first: the link opens a confirmation, and only its form cancels', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      assert.match(
        session.page.text,
        new RegExp(`<a class="link-button" id="cancel" href="${session.pagePath}/cancel">Cancel payment</a>`),
      );
      const question = await session.client.get(`${session.pagePath}/cancel`);
      assert.equal(question.status, 200);
      assert.match(
        textOf(question.text),
        /Cancel this payment\? You will go back to Test Shop without paying MWK 1,000\.00\. No, keep paying Yes, cancel payment/,
      );
      assert.match(question.text, new RegExp(`<a class="button" id="keep-paying" href="${session.pagePath}">`));
      assert.equal((await verify(session.txRef)).status, 'pending', 'asking changes nothing');
      const cancelled = await session.client.post(`${session.pagePath}/cancel`, {});
      assert.equal(cancelled.status, 303);
      assert.equal(new URL(cancelled.location!).searchParams.get('status'), 'failed');
      assert.equal((await verify(session.txRef)).status, 'failed');
    });

    test('cancelling while a request waits on the phone: "keep paying" goes back to it, and the customer is told a late approval is given back', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const posted = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: PAYS.airtel,
        operator: 'airtel',
      });
      const attemptPath = new URL(posted.location!).pathname;
      const question = await session.client.get(`${session.pagePath}/cancel`);
      assert.match(question.text, new RegExp(`id="keep-paying" href="${attemptPath}"`));
      assert.match(
        textOf(question.text),
        /If you approve the request on your phone after cancelling, the money is given back\./,
      );
    });

    test('a USD session offers card only, says why, and refuses a mobile money attempt posted anyway', async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key, { currency: 'USD', amount: 25 });
      assert.ok(!session.page.text.includes('id="mobile-form"'), 'no mobile money form');
      assert.ok(!session.page.text.includes('role="tablist"'), 'no choice of method to make');
      assert.match(session.page.text, /id="pay-card"/);
      assert.match(
        textOf(session.page.text),
        /Airtel Money and TNM Mpamba take payments in MWK only, so this USD payment is made by card\./,
      );
      const refused = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: PAYS.airtel,
        operator: 'airtel',
      });
      assert.equal(refused.status, 422);
      assert.equal(
        alertOf(refused),
        'Airtel Money and TNM Mpamba take payments in MWK only: pay this USD amount by card.',
      );
      const data = await verify(session.txRef);
      assert.equal(data.number_of_attempts, 0);
      assert.equal(data.status, 'pending');
      const card = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242424242424242',
        expiry: '12/30',
        cvv: '123',
      });
      const paid = await session.client.follow(
        await session.client.post(`${new URL(card.location!).pathname}/otp`, { otp: '1234' }),
      );
      assert.equal(new URL(paid.location!).searchParams.get('status'), 'success');
    });

    test("the page names the merchant's contact address, draws the operator and card marks itself and says who secures it", async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      assert.match(
        session.page.text,
        /Questions about this payment\? Ask Test Shop at <a href="mailto:shop@example\.com">shop@example\.com<\/a>/,
      );
      assert.match(textOf(session.page.text), /Secured by Lipira/);
      for (const brand of ['airtel">Airtel Money', 'tnm">TNM Mpamba', 'visa">Visa', 'mastercard">Mastercard'])
        assert.match(session.page.text, new RegExp(`<li class="mark mark-${brand}</li>`));
      assert.ok(!/<img(?![^>]*id="merchant-logo")/.test(session.page.text), "no image but the merchant's own logo");
    });
  });

  describe(`times for people in TIMEZONE on ${kind}`, () => {
    // Not Malawi's zone, so a time shown in the default zone or in UTC would show.
    const ctx = useTestGateway(kind, { TIMEZONE: 'Asia/Kolkata' });

    test("the receipt page and the receipt emails show the payment's time in the gateway's zone, named", async () => {
      const session = await openSession(ctx.gw, ctx.merchant.test_secret_key);
      const card = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242424242424242',
        expiry: '12/30',
        cvv: '123',
      });
      await session.client.follow(
        await session.client.post(`${new URL(card.location!).pathname}/otp`, { otp: '1234' }),
      );
      const db = ctx.gw.gateway.database.db;
      const row = await db
        .selectFrom('checkout_sessions')
        .select('completed_at')
        .where('id', '=', session.id)
        .executeTakeFirstOrThrow();
      const expected = `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Asia/Kolkata' }).format(row.completed_at!)} GMT+5:30`;
      const receipt = await session.client.get(session.pagePath);
      assert.ok(textOf(receipt.text).includes(`Date ${expected}`), textOf(receipt.text));
      assert.match(textOf(receipt.text), /Paid with Visa •••• 4242/);
      const emails = await db
        .selectFrom('emails')
        .innerJoin('events', 'events.id', 'emails.event_id')
        .select(['emails.text_body', 'emails.html_body'])
        .where('events.subject_id', '=', session.id)
        .execute();
      assert.equal(emails.length, 2, 'merchant and customer receipts');
      for (const email of emails) {
        assert.ok(email.text_body.includes(`Date: ${expected}\n`), email.text_body);
        assert.ok(email.html_body.includes(expected), 'the HTML part too');
      }
    });
  });
}
