import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { browserSuiteOptions, submitForm, useBrowser, useMerchantSite, type Tab } from '../helpers/browser.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AIRTEL_CALLBACK_SECRET, freshAirtelNumber, liveAirtelEnv } from '../helpers/live-airtel.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { startSmtp, type SmtpPeer } from '../helpers/smtp.ts';
import { assertAccessible } from './axe.ts';
import { assertFitsEveryWidth } from './layout.ts';

/**
 * The hosted checkout of a LIVE session in headless Chromium, paid through the fake Airtel: the
 * live provider's USSD push, its enquiries by the settler and the page's poll, and the receipt
 * mailed over real SMTP, as a customer meets them.
 */
describe('a live hosted checkout paid with Airtel Money in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  const shop = useMerchantSite();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      let fake: FakeAirtel;
      let smtp: SmtpPeer;
      let gw: TestGateway;
      let merchant: MerchantCredentials;

      before(async () => {
        fake = await startFakeAirtel({ callbackSecret: AIRTEL_CALLBACK_SECRET });
        smtp = await startSmtp();
        gw = await startTestGateway(kind, { ...liveAirtelEnv(fake), SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
        fake.callbacksTo(`${gw.url}/callbacks/airtel`);
        merchant = await gw.newMerchant('Live Shop');
      });
      afterEach(() => assertLedgerBalanced(gw));
      after(async () => {
        await gw.close();
        await fake.close();
        await smtp.close();
      });

      /** The merchant creates a session with its live secret key; the customer opens its checkout_url. */
      async function openLiveCheckout(email: string): Promise<Tab & { txRef: string; checkoutUrl: string }> {
        const body = currentBody({
          email,
          callback_url: `${shop.origin}/paid?order=7`,
          return_url: `${shop.origin}/cancelled`,
        });
        const created = await call(gw.url, '/payment', { key: merchant.live_secret_key, body });
        assert.equal(created.status, 201, created.text);
        const checkoutUrl: string = created.body.data.checkout_url;
        const tab = await browser.newTab();
        await tab.page.goto(checkoutUrl);
        return { ...tab, txRef: String(body.tx_ref), checkoutUrl };
      }

      async function payWithMobile(page: Page, mobile: string): Promise<void> {
        await page.click('#method-mobile');
        await page.locator('#mobile').pressSequentially(mobile);
        assert.equal(await page.inputValue('#operator'), 'airtel', 'the page chose Airtel from the number');
        await submitForm(page, '#pay-mobile');
      }

      async function verifyLive(txRef: string) {
        const res = await call(gw.url, `/verify-payment/${txRef}`, { key: merchant.live_secret_key });
        assert.equal(res.status, 200, res.text);
        return res.body.data;
      }

      /** Our ids of the session's attempts (what Airtel knows each by), oldest first, and the session's own id. */
      async function sessionAndAttempts(txRef: string): Promise<{ sessionId: string; attemptIds: string[] }> {
        const db = gw.gateway.database.db;
        const session = await db
          .selectFrom('checkout_sessions')
          .select('id')
          .where('merchant_id', '=', merchant.id)
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow();
        const attempts = await db
          .selectFrom('charges')
          .select('id')
          .where('session_id', '=', session.id)
          .orderBy('created_at')
          .execute();
        return { sessionId: session.id, attemptIds: attempts.map((attempt) => attempt.id) };
      }

      const pushesFor = (attemptId: string) =>
        fake
          .received('POST', '/merchant/v1/payments/')
          .filter((request) => (request.body as { transaction: { id: string } }).transaction.id === attemptId);

      /** The session's `checkout.payment` events, as stored for the webhook outbox. */
      async function checkoutEvents(sessionId: string): Promise<Array<{ mode: string; status: string }>> {
        const rows = await gw.gateway.database.db
          .selectFrom('events')
          .select(['mode', 'type', 'payload'])
          .where('subject_id', '=', sessionId)
          .orderBy('created_at')
          .execute();
        assert.ok(rows.every((row) => row.type === 'checkout.payment'));
        return rows.map((row) => ({ mode: row.mode, status: (JSON.parse(row.payload) as { status: string }).status }));
      }

      test('the customer approves on the phone: the page waits, then lands on callback_url; verify, one push, the event, the customer receipt and the ledger agree', async () => {
        const customer = freshAirtelNumber();
        // The customer approves once the waiting page has been checked (axe alone takes seconds on a
        // loaded machine): until then every enquiry finds the push still waiting.
        fake.script(customer.local, { states: ['TIP'] });
        const email = `live-payer-${kind}@example.com`;
        const { page, problems, txRef, checkoutUrl } = await openLiveCheckout(email);
        assert.equal(await page.locator('.test-banner').count(), 0, 'no TEST MODE banner on a live session');
        await payWithMobile(page, customer.mobile);

        await page.locator('#approval').waitFor();
        assert.match((await page.textContent('#approval')) ?? '', /Airtel Money/);
        await assertAccessible(page, 'the live waiting page');
        const [pushed] = (await sessionAndAttempts(txRef)).attemptIds;
        fake.approve(pushed!);

        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid', { timeout: 20_000 });
        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('order'), '7');
        assert.equal(landed.searchParams.get('tx_ref'), txRef);
        assert.equal(landed.searchParams.get('status'), 'success');

        const data = await verifyLive(txRef);
        assert.equal(data.status, 'success');
        assert.equal(data.mode, 'live');
        assert.equal(data.number_of_attempts, 1);
        assert.equal(landed.searchParams.get('transaction_id'), data.reference);
        assert.equal(data.authorization.provider, 'Airtel Money');

        const { sessionId, attemptIds } = await sessionAndAttempts(txRef);
        assert.equal(attemptIds.length, 1);
        const pushes = pushesFor(attemptIds[0]!);
        assert.equal(pushes.length, 1, 'exactly one USSD push for the attempt');
        assert.equal((pushes[0]!.body as { subscriber: { msisdn: string } }).subscriber.msisdn, customer.local);

        // Live webhooks are never sent to a loopback address (by design), so the event is checked
        // where the webhook outbox takes it from, not at a receiver.
        assert.deepEqual(await checkoutEvents(sessionId), [{ mode: 'live', status: 'success' }]);

        // A live receipt goes to the customer's own address (only test ones are held in the outbox).
        const receipt = await eventually('the customer receipt over SMTP', async () =>
          smtp.mails.find((mail) => mail.envelopeTo.includes(email) && mail.text.includes(txRef)),
        );
        assert.equal(receipt.headers.get('subject'), 'Your receipt from Live Shop: MWK 1,000.00');
        for (const part of [data.reference, txRef, 'Airtel Money'])
          assert.ok(receipt.text.includes(part), `the receipt names ${part}:\n${receipt.text}`);
        assert.ok(!receipt.text.includes(customer.local), 'never the full mobile number');

        await page.goto(checkoutUrl);
        await page.locator('#receipt').waitFor();
        assert.match((await page.textContent('#receipt')) ?? '', /Payment received/);
        await assertAccessible(page, 'the live receipt page');
        await assertFitsEveryWidth(page, 'the live receipt page');
        assert.deepEqual(problems, [], 'no console errors, script errors or CSP violations on the way');
      });

      test('a wrong PIN at Airtel: the page gives the wrong-PIN advice and the tries left, and the customer pays on a second try', async () => {
        const customer = freshAirtelNumber();
        fake.script(customer.local, { states: ['TF'], failureCode: 'DP00800001002' });
        const { page, problems, txRef } = await openLiveCheckout(`live-pin-${kind}@example.com`);
        await payWithMobile(page, customer.mobile);

        const error = page.locator('.error[role=alert]');
        await error.waitFor();
        assert.equal(
          (await error.textContent())?.trim(),
          'The PIN was wrong — try again and enter your mobile money PIN on your phone. 2 tries left.',
        );
        assert.equal(
          await page.inputValue('#mobile'),
          customer.mobile,
          'the number typed is still there, to try again',
        );
        await assertAccessible(page, 'the live payment page after a wrong PIN');
        await assertFitsEveryWidth(page, 'the live payment page after a wrong PIN');
        const failed = await verifyLive(txRef);
        assert.equal(failed.status, 'pending', 'the session is still payable');
        assert.equal(failed.number_of_attempts, 1);

        fake.script(customer.local, { states: ['TIP', 'TS'] });
        await submitForm(page, '#pay-mobile');
        await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');
        assert.equal(new URL(page.url()).searchParams.get('status'), 'success');
        const paid = await verifyLive(txRef);
        assert.equal(paid.status, 'success');
        assert.equal(paid.mode, 'live');
        assert.equal(paid.number_of_attempts, 2);

        const { sessionId, attemptIds } = await sessionAndAttempts(txRef);
        assert.deepEqual(
          attemptIds.map((id) => pushesFor(id).length),
          [1, 1],
          'one USSD push per attempt',
        );
        assert.deepEqual(await checkoutEvents(sessionId), [
          { mode: 'live', status: 'failed' },
          { mode: 'live', status: 'success' },
        ]);
        assert.deepEqual(problems, []);
      });
    });
  }
});
