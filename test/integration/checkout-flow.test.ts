import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { completeCheckoutCharge } from '../../src/checkout/checkout-payments.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { loadConfig } from '../../src/config.ts';
import { alertOf, CheckoutClient, textOf, type PageResponse } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody, TIMESTAMP } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';

for (const kind of DATABASE_KINDS) {
  describe(`the hosted checkout flow on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '150ms', ...LIVE_SESSIONS_ONLY });
    const db = () => ctx.gw.gateway.database.db;

    async function openSession(
      overrides: Record<string, unknown> = {},
      key = ctx.merchant.test_secret_key,
      path = '/payment',
    ) {
      const body = path === '/payment' ? currentBody(overrides) : legacyBody(overrides);
      const created = await call(ctx.gw.url, path, { key, body });
      assert.equal(created.status, 201, created.text);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(ctx.gw.url);
      const page = await client.get(pagePath);
      return { body, txRef: String(body.tx_ref), pagePath, client, page, key };
    }

    async function verify(txRef: string, key = ctx.merchant.test_secret_key) {
      const res = await call(ctx.gw.url, `/verify-payment/${txRef}`, { key });
      assert.equal(res.status, 200);
      return res.body.data;
    }

    /** Waits like the page's script does, then loads the attempt page once more. */
    async function awaitOutcome(client: CheckoutClient, attemptPath: string): Promise<PageResponse> {
      for (let waited = 0; waited < 10_000; waited += 50) {
        const status = await (await fetch(`${ctx.gw.url}${attemptPath}/status`)).json();
        if (status.next_url) return client.get(status.next_url);
        await sleep(50);
      }
      throw new Error('the attempt never ended');
    }

    async function payByMobile(session: Awaited<ReturnType<typeof openSession>>, mobile: string, operator: string) {
      const posted = await session.client.post(`${session.pagePath}/pay/mobile-money`, { mobile, operator });
      assert.equal(posted.status, 303, posted.text);
      const attemptPath = new URL(posted.location!).pathname;
      // The sandbox may settle before this first look; then the page already sends the browser on.
      const waiting = await session.client.get(attemptPath);
      assert.ok([200, 303].includes(waiting.status), `attempt page answered ${waiting.status}`);
      return awaitOutcome(session.client, attemptPath);
    }

    const events = (txRef: string) =>
      db()
        .selectFrom('events')
        .innerJoin('checkout_sessions', 'checkout_sessions.id', 'events.subject_id')
        .select(['events.payload'])
        .where('checkout_sessions.tx_ref', '=', txRef)
        .orderBy('events.created_at')
        .execute()
        .then((rows) => rows.map((row) => JSON.parse(row.payload)));

    test('the page is HTML with protective headers, and escapes merchant text', async () => {
      const session = await openSession({
        customization: { title: '<script>alert("t")</script>', description: '<img src=x onerror=alert(1)>' },
        first_name: '<b>Eve</b>',
      });
      assert.equal(session.page.status, 200);
      assert.match(session.page.headers.get('content-type') ?? '', /^text\/html/);
      const csp = session.page.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self' https:\/\/shop\.example\.com/);
      assert.equal(session.page.headers.get('x-frame-options'), 'DENY');
      assert.equal(session.page.headers.get('referrer-policy'), 'same-origin');
      assert.match(session.page.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Lax/);
      assert.ok(!session.page.text.includes('<script>alert'));
      assert.ok(!session.page.text.includes('<img src=x'));
      assert.ok(!session.page.text.includes('<b>Eve'));
      assert.ok(session.page.text.includes('&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;'));
      assert.ok(session.page.text.includes('MWK 1,000.00'));
      assert.ok(
        session.page.text.includes('<span class="merchant-name">Test Shop</span>'),
        'the name of the merchant being paid',
      );
    });

    test('mobile money success: the browser lands on callback_url and verification shows the payment', async () => {
      const session = await openSession();
      const done = await payByMobile(session, '0990000000', 'airtel');
      assert.equal(done.status, 303);
      const landed = new URL(done.location!);
      assert.equal(landed.origin + landed.pathname, 'https://shop.example.com/paid');
      assert.equal(landed.searchParams.get('order'), '7', 'the query the URL already had is kept');
      assert.equal(landed.searchParams.get('tx_ref'), session.txRef);
      assert.equal(landed.searchParams.get('status'), 'success');
      const data = await verify(session.txRef);
      assert.equal(landed.searchParams.get('transaction_id'), data.reference);
      assert.equal(data.status, 'success');
      assert.equal(data.number_of_attempts, 1);
      assert.equal(data.charges, 30, '3 % of MWK 1,000');
      assert.deepEqual(
        { ...data.authorization, completed_at: undefined },
        {
          channel: 'Mobile Money',
          card_number: null,
          expiry: null,
          brand: null,
          provider: 'Airtel Money',
          mobile_number: '+265990xxxx00',
          completed_at: undefined,
        },
      );
      assert.match(data.authorization.completed_at, TIMESTAMP);
      const messages = data.logs.map((log: { message: string }) => log.message);
      assert.ok(messages.includes('Attempted to pay with Airtel Money (+265990xxxx00)'), messages.join(' | '));
      assert.ok(messages.includes('Payment completed with Airtel Money (+265990xxxx00)'), messages.join(' | '));
      const legacy = await call(ctx.gw.url, `/api/verify-payment/${session.txRef}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(legacy.body.data.charge, '30.00');
      assert.equal(legacy.body.data.status, 'success');
      const emitted = await events(session.txRef);
      assert.equal(emitted.length, 1);
      assert.equal(emitted[0].event_type, 'checkout.payment');
      assert.equal(emitted[0].status, 'success');
      assert.equal(emitted[0].tx_ref, session.txRef);
      assert.equal(emitted[0].charge_id, emitted[0].chargeId);
      assert.equal(emitted[0].reference, data.reference);
      const revisit = await session.client.get(session.pagePath);
      assert.equal(revisit.status, 200, 'a paid session shows its receipt');
    });

    test('TNM test numbers work in any common form', async () => {
      for (const mobile of ['+265 899 817 565', '265899817565', '899817565']) {
        const session = await openSession();
        const done = await payByMobile(session, mobile, 'tnm');
        assert.equal(new URL(done.location!).searchParams.get('status'), 'success', mobile);
        assert.equal((await verify(session.txRef)).authorization.provider, 'TNM Mpamba');
      }
    });

    test('a failed attempt says in plain words what happened, what to do and how many tries are left; fail twice then succeed', async () => {
      const session = await openSession();
      for (const [i, tries] of [
        [1, '2 tries left'],
        [2, 'Last try'],
      ] as const) {
        const failed = await payByMobile(session, '0990000001', 'airtel');
        assert.equal(failed.status, 200);
        assert.equal(alertOf(failed), `Not enough money in the wallet — top up or use another number. ${tries}.`);
        assert.match(failed.text, /id="mobile-form"/, 'the mobile money form is there to try again');
        const data = await verify(session.txRef);
        assert.equal(data.status, 'pending');
        assert.equal(data.number_of_attempts, i);
      }
      const done = await payByMobile(session, '0990000000', 'airtel');
      assert.equal(new URL(done.location!).searchParams.get('status'), 'success');
      const data = await verify(session.txRef);
      assert.equal(data.status, 'success');
      assert.equal(data.number_of_attempts, 3);
      const emitted = await events(session.txRef);
      assert.deepEqual(
        emitted.map((event) => event.status),
        ['failed', 'failed', 'success'],
        'one event per failed attempt and one for the success',
      );
    });

    test('the third failed attempt ends the session: our page says what happened, then sends the browser to return_url', async () => {
      const session = await openSession();
      await payByMobile(session, '0990000001', 'airtel');
      await payByMobile(session, '0899817566', 'tnm');
      const last = await payByMobile(session, '0990000001', 'airtel');
      assert.equal(last.status, 200, 'the customer is not sent away without a word');
      assert.match(
        textOf(last.text),
        /This payment did not go through Not enough money in the wallet\. That was the last try, so this payment has ended\./,
      );
      const back = /<a class="button" id="return" href="([^"]+)">Return to Test Shop<\/a>/.exec(last.text)?.[1];
      const refresh = /<noscript><meta http-equiv="refresh" content="(\d+);url=([^"]+)"><\/noscript>/.exec(last.text);
      assert.ok(
        back && refresh,
        'a button back to the shop, and a refresh that goes there by itself without JavaScript',
      );
      assert.equal(refresh[2], back, 'both go to the same place');
      assert.equal(Number(refresh[1]), 15);
      assert.match(last.text, /Taking you back to Test Shop in <span id="countdown-seconds">15<\/span> seconds/);
      const landed = new URL(textOf(back));
      assert.equal(landed.origin + landed.pathname, 'https://shop.example.com/cancelled');
      assert.equal(landed.searchParams.get('tx_ref'), session.txRef);
      assert.equal(landed.searchParams.get('status'), 'failed');
      assert.equal(
        textOf(back),
        `https://shop.example.com/cancelled?tx_ref=${session.txRef}&status=failed`,
        'the same query as the redirect always carried',
      );
      const data = await verify(session.txRef);
      assert.equal(data.status, 'failed');
      assert.equal(data.number_of_attempts, 3);
      assert.equal(data.authorization, null);
      const again = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: '0990000000',
        operator: 'airtel',
      });
      assert.equal(again.status, 303, 'an ended session takes no more attempts');
      assert.equal(new URL(again.location!).searchParams.get('status'), 'failed');
      assert.equal((await verify(session.txRef)).number_of_attempts, 3);
    });

    test('numbers that are not test numbers, not Malawian, or of another operator are refused at once', async () => {
      const session = await openSession();
      const cases: Array<[string, string, RegExp]> = [
        ['0991234567', 'airtel', /0990000000/],
        ['12345', 'airtel', /Airtel Money \(099, 098\)/],
        ['0990000000', 'tnm', /0990000000 is an Airtel Money number; choose Airtel Money or check the number\./],
        ['0899817565', 'airtel', /0899817565 is a TNM Mpamba number; choose TNM Mpamba or check the number\./],
      ];
      for (const [mobile, operator, message] of cases) {
        const refused = await session.client.post(`${session.pagePath}/pay/mobile-money`, { mobile, operator });
        assert.equal(refused.status, 422, mobile);
        assert.match(refused.text, message);
      }
      const data = await verify(session.txRef);
      assert.equal(data.number_of_attempts, 0, 'a refusal is not an attempt');
      assert.equal(data.status, 'pending');
    });

    test('cancel sends the browser to return_url with status=failed', async () => {
      const session = await openSession();
      const cancelled = await session.client.post(`${session.pagePath}/cancel`, {});
      assert.equal(cancelled.status, 303);
      const landed = new URL(cancelled.location!);
      assert.equal(landed.pathname, '/cancelled');
      assert.equal(landed.searchParams.get('status'), 'failed');
      assert.equal(landed.searchParams.get('tx_ref'), session.txRef);
      assert.equal((await verify(session.txRef)).status, 'failed');
      const revisit = await session.client.get(session.pagePath);
      assert.equal(revisit.status, 200);
      assert.ok(revisit.text.includes('cancel'), 'an ended session shows a page of its own');
    });

    test('card: the one-time code step, then success; only the masked card is kept', async () => {
      const session = await openSession();
      const posted = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242 4242 4242 4242',
        expiry: '12/30',
        cvv: '123',
      });
      assert.equal(posted.status, 303, posted.text);
      const attemptPath = new URL(posted.location!).pathname;
      const otpPage = await session.client.get(attemptPath);
      assert.equal(otpPage.status, 200);
      const confirmed = await session.client.post(`${attemptPath}/otp`, { otp: '1234' });
      const done = await session.client.follow(confirmed);
      assert.equal(new URL(done.location!).searchParams.get('status'), 'success');
      const data = await verify(session.txRef);
      assert.deepEqual(
        { ...data.authorization, completed_at: undefined },
        {
          channel: 'Card',
          card_number: '424242******4242',
          expiry: '2030-12',
          brand: 'VISA',
          provider: null,
          mobile_number: null,
          completed_at: undefined,
        },
      );
      const stored =
        JSON.stringify(await db().selectFrom('charges').selectAll().execute()) +
        JSON.stringify(await db().selectFrom('logs').selectAll().execute()) +
        JSON.stringify(await db().selectFrom('events').selectAll().execute());
      assert.ok(!stored.includes('4242424242424242'), 'no full card number stored');
      assert.ok(!/"cvv"|"123"/.test(stored), 'no CVV stored');
    });

    test('a wrong one-time code and the declining test cards are failed attempts, told to the customer in plain words', async () => {
      const session = await openSession();
      const cases: Array<[string, string, string]> = [
        [
          '5555 5555 5555 4444',
          '9999',
          'The one-time code was not right — try again and enter the code your bank sent you. 2 tries left.',
        ],
        [
          '4000 0000 0000 0002',
          '1234',
          'Your card was declined — try another card or pay with mobile money. Last try.',
        ],
      ];
      for (const [card, otp, advice] of cases) {
        const posted = await session.client.post(`${session.pagePath}/pay/card`, {
          card_number: card,
          expiry: '01/35',
          cvv: '999',
        });
        const attemptPath = new URL(posted.location!).pathname;
        await session.client.get(attemptPath);
        const failed = await session.client.follow(await session.client.post(`${attemptPath}/otp`, { otp }));
        assert.equal(failed.status, 200);
        assert.equal(alertOf(failed), advice);
      }
      const data = await verify(session.txRef);
      assert.equal(data.status, 'pending');
      assert.equal(data.number_of_attempts, 2);
    });

    test('each declining test card gives its own advice, never its raw code, and its code is kept on the charge; merchants still read the reason', async () => {
      const cases = [
        [
          '4000000000009995',
          'insufficient_funds',
          'Not enough money on the card — try another card or pay with mobile money.',
          'INSUFFICIENT_FUNDS',
        ],
        [
          '4000000000003220',
          'timed_out',
          'Your bank did not answer in time — try again, or use another card.',
          'TIMED_OUT',
        ],
        [
          '5200000000000008',
          'issuer_error',
          'Your bank could not take the payment just now — try again in a moment, or use another card.',
          'ERROR',
        ],
      ] as const;
      for (const [card, code, advice, raw] of cases) {
        const session = await openSession();
        const posted = await session.client.post(`${session.pagePath}/pay/card`, {
          card_number: card,
          expiry: '01/35',
          cvv: '999',
        });
        const attemptPath = new URL(posted.location!).pathname;
        await session.client.get(attemptPath);
        const failed = await session.client.follow(await session.client.post(`${attemptPath}/otp`, { otp: '1234' }));
        assert.equal(alertOf(failed), `${advice} 2 tries left.`);
        assert.ok(!alertOf(failed).includes(raw));
        const charge = await db()
          .selectFrom('charges')
          .select(['failure_code', 'failure_reason', 'charge_id'])
          .where('charge_id', '=', attemptPath.split('/').pop()!)
          .executeTakeFirstOrThrow();
        assert.equal(charge.failure_code, code);
        const [event] = await events(session.txRef);
        assert.match(event.failure_reason, new RegExp(`\\(${raw}\\)`), 'the webhook keeps the merchant-facing reason');
      }
    });

    test('card input errors are refused before any attempt', async () => {
      const session = await openSession();
      for (const [fields, message] of [
        [{ card_number: '1234', expiry: '12/30', cvv: '123' }, /valid card number/],
        [{ card_number: '4242424242424242', expiry: '13/30', cvv: '123' }, /MM\/YY/],
        [{ card_number: '4242424242424242', expiry: '01/20', cvv: '123' }, /expired/],
        [{ card_number: '4242424242424242', expiry: '12/30', cvv: '1' }, /security code/],
        [{ card_number: '4111111111111111', expiry: '12/30', cvv: '123' }, /test cards/],
      ] as const) {
        const refused = await session.client.post(`${session.pagePath}/pay/card`, fields);
        assert.equal(refused.status, 422);
        assert.match(refused.text, message);
      }
      assert.equal((await verify(session.txRef)).number_of_attempts, 0);
    });

    test('forms without the right token, or from another origin, are refused and change nothing', async () => {
      const session = await openSession();
      const noToken = await session.client.post(`${session.pagePath}/cancel`, { csrf: '' });
      assert.equal(noToken.status, 403);
      const wrongToken = await session.client.post(`${session.pagePath}/cancel`, { csrf: 'A'.repeat(32) });
      assert.equal(wrongToken.status, 403);
      const foreign = await session.client.post(`${session.pagePath}/cancel`, {}, { origin: 'https://evil.example' });
      assert.equal(foreign.status, 403);
      const stranger = new CheckoutClient(ctx.gw.url);
      stranger.csrf = session.client.csrf;
      assert.equal(
        (await stranger.post(`${session.pagePath}/cancel`, {})).status,
        403,
        'the token alone, without its cookie, is not enough',
      );
      assert.equal((await verify(session.txRef)).status, 'pending');
    });

    test('an unknown session has a 404 page; unknown attempts too', async () => {
      const client = new CheckoutClient(ctx.gw.url);
      const missing = await client.get('/checkout/AAAAAAAAAAAAAAAAAAAAAA');
      assert.equal(missing.status, 404);
      assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
      const session = await openSession();
      assert.equal((await session.client.get(`${session.pagePath}/attempts/ch_nope`)).status, 404);
    });

    test('a link or attempt holding a NUL (which PostgreSQL cannot even compare) is a 404 page, not a 500', async () => {
      const session = await openSession();
      for (const path of [
        '/checkout/%00',
        '/checkout/a%00b/attempts/x',
        `${session.pagePath}/attempts/a%00b`,
        `${session.pagePath}/attempts/%00/status`,
      ]) {
        assert.equal((await session.client.get(path)).status, 404, path);
      }
      assert.equal((await session.client.post(`${session.pagePath}/attempts/a%00b/otp`, { otp: '1234' })).status, 404);
      assert.equal((await session.client.post('/checkout/a%00b/cancel', {})).status, 404);
    });

    test("the page's assets are its own files: names of object properties are unknown files, not a 500", async () => {
      assert.equal((await fetch(`${ctx.gw.url}/checkout/assets/checkout.css`)).status, 200);
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
        const res = await fetch(`${ctx.gw.url}/checkout/assets/${name}`);
        assert.equal(res.status, 404, name);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      }
    });

    test('a live attempt is refused with a clear message and the session stays payable', async () => {
      const session = await openSession({}, ctx.merchant.live_secret_key);
      const refused = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: '0881234567',
        operator: 'tnm',
      });
      assert.equal(refused.status, 422);
      assert.match(
        alertOf(refused),
        /Live payments are not available yet: this gateway's operator has not connected TNM Mpamba\./,
      );
      const mistyped = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242424242424241',
        expiry: '12/30',
        cvv: '123',
      });
      assert.match(mistyped.text, /Enter a valid card number/, 'live cards are checked for typos first');
      const card = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242424242424242',
        expiry: '12/30',
        cvv: '123',
      });
      assert.match(
        alertOf(card),
        /Live payments are not available yet: this gateway's operator has not connected a card acquirer\./,
      );
      const data = await verify(session.txRef, ctx.merchant.live_secret_key);
      assert.equal(data.status, 'pending');
      assert.equal(data.number_of_attempts, 0);
    });

    test('a legacy session without URLs ends on our own receipt page', async () => {
      const session = await openSession({ currency: 'MWK' }, ctx.merchant.test_secret_key, '/api/payment');
      const done = await payByMobile(session, '0990000000', 'airtel');
      assert.equal(done.status, 303);
      assert.equal(new URL(done.location!).pathname, session.pagePath);
      const receipt = await session.client.get(session.pagePath);
      assert.equal(receipt.status, 200);
      assert.equal(
        (await call(ctx.gw.url, `/api/verify-payment/${session.txRef}`, { key: ctx.merchant.test_secret_key })).body
          .data.status,
        'success',
      );
    });

    test('two tabs paying with the same card at the same moment share one attempt: one charge, one payment', async () => {
      const session = await openSession();
      const tabs = [session.client, new CheckoutClient(ctx.gw.url)];
      await tabs[1]!.get(session.pagePath);
      const attempts = await Promise.all(
        tabs.map(
          async (tab) =>
            new URL(
              (
                await tab.post(`${session.pagePath}/pay/card`, {
                  card_number: '4242424242424242',
                  expiry: '12/30',
                  cvv: '123',
                })
              ).location!,
            ).pathname,
        ),
      );
      assert.equal(attempts[0], attempts[1], 'the second tab is shown the attempt the first started');
      const confirmed = await Promise.all(tabs.map((tab, i) => tab.post(`${attempts[i]}/otp`, { otp: '1234' })));
      const landings = await Promise.all(tabs.map((tab, i) => tab.follow(confirmed[i]!)));
      for (const landing of landings) assert.equal(new URL(landing.location!).searchParams.get('status'), 'success');
      const data = await verify(session.txRef);
      assert.equal(data.status, 'success');
      assert.equal(data.number_of_attempts, 1);
      const charges = await db()
        .selectFrom('charges')
        .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
        .select(['charges.status'])
        .where('checkout_sessions.tx_ref', '=', session.txRef)
        .execute();
      assert.deepEqual(
        charges.map((charge) => charge.status),
        ['success'],
      );
      assert.equal(
        (await events(session.txRef)).filter((event) => event.status === 'success').length,
        1,
        'one payment is counted',
      );
    });

    test('a card waiting for its code gives way to another method; its code, sent later, is never sent to the issuer', async () => {
      const session = await openSession();
      const card = await session.client.post(`${session.pagePath}/pay/card`, {
        card_number: '4242424242424242',
        expiry: '12/30',
        cvv: '123',
      });
      const cardAttempt = new URL(card.location!).pathname;
      const mobile = await payByMobile(session, '0990000000', 'airtel');
      assert.equal(new URL(mobile.location!).searchParams.get('status'), 'success');
      const lateCode = await session.client.post(`${cardAttempt}/otp`, { otp: '1234' });
      assert.equal(
        new URL((await session.client.follow(lateCode)).location!).searchParams.get('status'),
        'success',
        'the customer is sent on as paid',
      );
      const charges = await db()
        .selectFrom('charges')
        .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
        .select(['charges.channel', 'charges.status', 'charges.failure_reason', 'charges.failure_code'])
        .where('checkout_sessions.tx_ref', '=', session.txRef)
        .orderBy('charges.created_at')
        .execute();
      assert.deepEqual(
        charges.map((charge) => `${charge.channel}:${charge.status}`),
        ['card:failed', 'mobile_money:success'],
      );
      assert.match(charges[0]!.failure_reason ?? '', /another payment before its one-time code/);
      assert.equal(charges[0]!.failure_code, 'superseded', 'so its page says it gave way, not that the card failed');
      const data = await verify(session.txRef);
      assert.equal(data.number_of_attempts, 2);
      assert.equal(data.authorization.channel, 'Mobile Money');
    });

    test('completions of one attempt racing inside the service: it ends once and pays the session once', async () => {
      const session = await openSession();
      const posted = await session.client.post(`${session.pagePath}/pay/mobile-money`, {
        mobile: '0990000000',
        operator: 'airtel',
      });
      const chargeId = new URL(posted.location!).pathname.split('/').pop()!;
      const charge = await db()
        .selectFrom('charges')
        .selectAll()
        .where('charge_id', '=', chargeId)
        .executeTakeFirstOrThrow();
      const deps = paymentDeps(loadConfig({}), ctx.gw.gateway.database);
      await Promise.all(
        [0, 1, 2, 3].map(() => completeCheckoutCharge(deps, charge, { status: 'success', transId: null }, Date.now())),
      );
      const paid = await db()
        .selectFrom('checkout_sessions')
        .select(['status', 'paid_charge_id'])
        .where('tx_ref', '=', session.txRef)
        .executeTakeFirstOrThrow();
      assert.equal(paid.status, 'success');
      assert.equal(paid.paid_charge_id, charge.id);
      assert.equal((await events(session.txRef)).filter((event) => event.status === 'success').length, 1);
      assert.equal(
        (await db().selectFrom('refunds').select('id').where('charge_ref', '=', charge.id).execute()).length,
        0,
        'nothing to give back',
      );
    });
  });

  describe(`checkout waiting and expiry on ${kind}`, () => {
    const ctx = useTestGateway(kind, { CHECKOUT_TTL: '1s', SANDBOX_MOBILE_DELAY: '30s' });

    test('while the customer approves on the phone, the page waits and its status says pending', async () => {
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(ctx.gw.url);
      await client.get(pagePath);
      const posted = await client.post(`${pagePath}/pay/mobile-money`, { mobile: '0990000000', operator: 'airtel' });
      const attemptPath = new URL(posted.location!).pathname;
      const waiting = await client.get(attemptPath);
      assert.equal(waiting.status, 200);
      assert.match(waiting.text, /Approve the payment on your phone/);
      assert.match(waiting.text, new RegExp(`data-status-url="${attemptPath}/status"`));
      assert.deepEqual(await (await fetch(`${ctx.gw.url}${attemptPath}/status`)).json(), {
        status: 'pending',
        next_url: null,
      });
      const verified = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(verified.body.data.status, 'pending');
      assert.equal(verified.body.data.number_of_attempts, 1);
    });

    test('an expired session is failed, says so, and takes no attempt', async () => {
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const client = new CheckoutClient(ctx.gw.url);
      assert.equal((await client.get(pagePath)).status, 200);
      await sleep(1100);
      const page = await client.get(pagePath);
      assert.equal(page.status, 200);
      assert.match(page.text, /expired/i);
      const attempt = await client.post(`${pagePath}/pay/mobile-money`, { mobile: '0990000000', operator: 'airtel' });
      assert.equal(attempt.status, 303);
      assert.equal(new URL(attempt.location!).searchParams.get('status'), 'failed');
      const verified = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(verified.body.data.status, 'failed');
      assert.equal(verified.body.data.number_of_attempts, 0);
    });

    test('a verification that is first to find a session expired answers it failed, with the expiry last in its logs', async () => {
      const body = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      await sleep(1100);
      const verified = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(verified.status, 200);
      assert.equal(verified.body.data.status, 'failed');
      assert.deepEqual(
        verified.body.data.logs.map((log: { message: string }) => log.message),
        ['Checkout session created', 'The payment link expired'],
      );
      const again = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.deepEqual(again.body.data, verified.body.data, 'expired once, and answered the same afterwards');
    });
  });
}
