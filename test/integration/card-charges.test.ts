import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import {
  cardBody,
  chargeCard,
  dumpAllTables,
  MARKED_CVV,
  openThreeDs,
  payByDirectCard,
  standalone,
  TEST_CARD_NUMBERS,
  verifyCard,
} from '../helpers/cards.ts';
import { alertOf, textOf } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { TIMESTAMP } from '../helpers/fixtures.ts';
import { call, startTestGateway, useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  AUTHORIZATION_KEYS,
  eventually,
  fundMainBalance,
  merchantWithReceiver,
  sortedKeys,
  VERIFY_KEYS,
} from '../helpers/mobile-money.ts';
import type { Receiver } from '../helpers/receiver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOT_FOUND = { status: 'failed', message: 'Transaction not found.', data: null };

const refusal = (field: string, message: string) => ({ status: 'failed', message: { [field]: [message] }, data: null });

for (const kind of DATABASE_KINDS) {
  describe(`direct card charges on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '150ms', WORKER_INTERVAL: '50ms' });
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((receiver) => receiver.close())));
    const db = () => ctx.gw.gateway.database.db;
    const chargeRows = (merchantId: string) =>
      db().selectFrom('charges').selectAll().where('merchant_id', '=', merchantId).execute();

    test('a card charge answers the 3-D Secure link (no envelope); verify shows it pending; the code 1234 ends it at redirect_url with charge_id and status=success; verify, webhook, ledger and logs follow', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const body = cardBody({ email: 'chikondi@example.com' });
      const started = await chargeCard(ctx.gw, merchant.test_secret_key, body);
      assert.equal(started.status, 200, started.text);
      assert.deepEqual(sortedKeys(started.body), ['3ds_auth_link', 'orderReference', 'requires_3ds_auth', 'success']);
      assert.equal(started.body.success, true);
      assert.equal(started.body.requires_3ds_auth, true);
      assert.match(started.body.orderReference, UUID);
      assert.equal(started.body['3ds_auth_link'], `${ctx.gw.url}/3ds/auth?reference=${started.body.orderReference}`);

      const pending = await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(pending.status, 200, pending.text);
      assert.equal(pending.body.status, 'success');
      assert.deepEqual(sortedKeys(pending.body.data), VERIFY_KEYS);
      assert.equal(pending.body.data.status, 'pending');
      assert.equal(pending.body.data.amount, 1000);
      assert.equal(pending.body.data.first_name, 'Chikondi');
      assert.equal(pending.body.data.last_name, 'Banda');
      assert.deepEqual(sortedKeys(pending.body.data.authorization), AUTHORIZATION_KEYS);
      assert.deepEqual(
        { ...pending.body.data.authorization, completed_at: null },
        {
          channel: 'Card',
          card_number: '424242******4242',
          expiry: '2040-12',
          brand: 'VISA',
          provider: null,
          mobile_number: null,
          completed_at: null,
        },
      );

      const { client, path, page } = await openThreeDs(ctx.gw, started.body['3ds_auth_link']);
      assert.equal(page.status, 200);
      const shown = textOf(page.text);
      for (const part of ['Test Shop', 'MWK 1,000.00', 'Visa •••• 4242', 'Test code: 1234'])
        assert.ok(shown.includes(part), `the page shows ${part}: ${shown}`);
      assert.ok(!page.text.includes('424242'), 'no more of the number than the last four');
      assert.match(page.headers.get('content-security-policy')!, /form-action 'self' https:\/\/shop\.example;/);
      assert.match(page.headers.get('set-cookie')!, /Path=\/3ds\/auth; HttpOnly; SameSite=Lax/);

      const posted = await client.post(path, { otp: '1234' });
      assert.equal(posted.status, 303, posted.text.slice(0, 300));
      const back = new URL(posted.location!);
      assert.equal(back.origin + back.pathname, 'https://shop.example/orders/1/paid');
      assert.deepEqual(Object.fromEntries(back.searchParams), {
        order: '1',
        charge_id: body.charge_id,
        status: 'success',
      });

      const verified = await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(verified.body.message, 'Payment authorized and completed successfully.');
      assert.equal(verified.body.data.status, 'success');
      assert.equal(verified.body.data.event_type, 'api.charge.payment');
      assert.deepEqual(verified.body.data.transaction_charges, { currency: 'MWK', amount: '30.00' });
      assert.match(verified.body.data.authorization.completed_at, TIMESTAMP);
      assert.deepEqual(
        verified.body.data.logs.map((log: { message: string }) => log.message),
        ['Card payment requested with VISA 424242******4242: waiting for 3-D Secure', 'Payment completed'],
      );
      assert.equal(verified.body.data.refunded_amount, 0);
      assert.equal(verified.body.data.refund_status, null);
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 97_000);

      const [delivery] = await receiver.waitFor(1);
      const event = JSON.parse(delivery!.body);
      assert.equal(event.event_type, 'api.charge.payment');
      assert.equal(event.charge_id, body.charge_id);
      assert.equal(event.status, 'success');
      assert.equal(event.authorization.card_number, '424242******4242');
      const receipts = await db()
        .selectFrom('emails')
        .select('recipient')
        .where('merchant_id', '=', merchant.id)
        .execute();
      assert.ok(
        receipts.some((row) => row.recipient === 'chikondi@example.com'),
        'the customer gets a receipt',
      );

      // Back or refresh after the end: the merchant again, never a second charge.
      const again = await client.post(path, { otp: '1234' });
      assert.equal(again.location, posted.location);
      assert.equal((await client.get(path)).location, posted.location);
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 97_000);
    });

    test('each bad request is refused with 400 and the field that is wrong, and leaves no record', async () => {
      const merchant = await ctx.gw.newMerchant();
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ card_number: '4242 4242 4242 4241' }, 'card_number', 'The card number is not valid: check its digits.'],
        [{ card_number: '3782 822463 10005' }, 'card_number', 'Only Visa and Mastercard cards are accepted.'],
        [
          { card_number: '4111 1111 1111 1111' },
          'card_number',
          'Test mode only accepts the test cards: 4242 4242 4242 4242 (success), 5555 5555 5555 4444 (success), 4000 0000 0000 0002 (DECLINED), 4000 0000 0000 9995 (INSUFFICIENT_FUNDS), 4000 0000 0000 3220 (TIMED_OUT), 5200 0000 0000 0008 (ERROR).',
        ],
        [{ expiry: '01/20' }, 'expiry', 'This card has expired.'],
        [{ expiry: '13/40' }, 'expiry', 'Enter the expiry date as MM/YY.'],
        [{ cvv: '12a' }, 'cvv', 'Enter the 3 or 4 digit security code.'],
        [{ currency: 'EUR' }, 'currency', 'The currency must be one of: MWK, USD.'],
        [{ redirect_url: undefined }, 'redirect_url', 'The redirect url field is required.'],
        [{ redirect_url: 'ftp://shop.example/paid' }, 'redirect_url', 'The redirect url must be a valid URL.'],
        [{ redirect_url: 'javascript:alert(1)' }, 'redirect_url', 'The redirect url must be a valid URL.'],
        [{ amount: '10.50' }, 'amount', 'The amount must be an integer.'],
      ];
      for (const [overrides, field, message] of cases) {
        const res = await chargeCard(ctx.gw, merchant.test_secret_key, cardBody(overrides));
        assert.equal(res.status, 400, `${JSON.stringify(overrides)}: ${res.text}`);
        assert.deepEqual(res.body, refusal(field, message), JSON.stringify(overrides));
      }
      assert.deepEqual(await chargeRows(merchant.id), []);
      assert.equal((await chargeCard(ctx.gw, null, cardBody())).status, 401);
    });

    test('the same charge_id: the same request answers the same link; other parameters, or a charge_id of a mobile money charge, are refused', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = cardBody();
      const [first, second] = await Promise.all([
        chargeCard(ctx.gw, merchant.test_secret_key, body),
        chargeCard(ctx.gw, merchant.test_secret_key, body),
      ]);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(second.body, first.body);
      const taken = refusal('charge_id', 'The charge id has already been taken.');
      assert.deepEqual((await chargeCard(ctx.gw, merchant.test_secret_key, { ...body, amount: 2000 })).body, taken);
      assert.deepEqual(
        (
          await chargeCard(ctx.gw, merchant.test_secret_key, {
            ...body,
            card_number: TEST_CARD_NUMBERS.mastercardSuccess,
          })
        ).body,
        taken,
      );
      assert.equal((await chargeRows(merchant.id)).length, 1);
      await payByDirectCard(ctx.gw, merchant.test_secret_key, cardBody({ charge_id: 'mm-then-card' }));
      const mobile = await call(ctx.gw.url, '/mobile-money/payments/initialize', {
        key: merchant.test_secret_key,
        body: {
          mobile: '0990000000',
          mobile_money_operator_ref_id: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
          amount: 1000,
          charge_id: 'mm-then-card',
        },
      });
      assert.deepEqual(mobile.body, taken);
    });

    test('a declined card fails after 3-D Secure: status=failed at redirect_url, verify says why, no money moves', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const body = cardBody({ card_number: TEST_CARD_NUMBERS.declined });
      const posted = await payByDirectCard(ctx.gw, merchant.test_secret_key, body);
      assert.equal(posted.status, 303);
      assert.equal(new URL(posted.location!).searchParams.get('status'), 'failed');
      assert.equal(new URL(posted.location!).searchParams.get('charge_id'), body.charge_id);
      const verified = await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(verified.body.message, 'Payment failed.');
      assert.equal(verified.body.data.status, 'failed');
      assert.equal(verified.body.data.transaction_charges.amount, '0.00');
      assert.equal((await chargeRows(merchant.id))[0]!.failure_reason, 'The card was declined (DECLINED).');
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 0);
      const [delivery] = await receiver.waitFor(1);
      assert.equal(JSON.parse(delivery!.body).status, 'failed');
    });

    test('a wrong code says so with the tries left; the third wrong code fails the charge and goes back with status=failed', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = cardBody();
      const started = await chargeCard(ctx.gw, merchant.test_secret_key, body);
      const { client, path } = await openThreeDs(ctx.gw, started.body['3ds_auth_link']);
      const first = await client.post(path, { otp: '9999' });
      assert.equal(first.status, 422);
      assert.equal(
        alertOf(first),
        'That code was not right: check the code your bank sent and enter it again. 2 tries left.',
      );
      assert.equal(
        (await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id))).body.data.status,
        'pending',
      );
      assert.equal(
        alertOf(await client.post(path, { otp: '0000' })),
        'That code was not right: check the code your bank sent and enter it again. 1 try left.',
      );
      const last = await client.post(path, { otp: '1111' });
      assert.equal(last.status, 303);
      assert.equal(new URL(last.location!).searchParams.get('status'), 'failed');
      const verified = await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(verified.body.data.status, 'failed');
      assert.deepEqual(verified.body.data.logs.map((log: { message: string }) => log.message).slice(1), [
        '3-D Secure: wrong one-time code (1 of 3)',
        '3-D Secure: wrong one-time code (2 of 3)',
        'Payment failed: The one-time code was wrong (the test code is 1234).',
      ]);
    });

    test('a double submit of the code charges once: both land on the merchant with status=success', async () => {
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      const body = cardBody();
      const started = await chargeCard(ctx.gw, merchant.test_secret_key, body);
      const { client, path } = await openThreeDs(ctx.gw, started.body['3ds_auth_link']);
      const answers = await Promise.all([
        client.post(path, { otp: '1234' }),
        client.post(path, { otp: '1234' }),
        client.post(path, { otp: '1234' }),
      ]);
      for (const answer of answers) assert.equal(new URL(answer.location!).searchParams.get('status'), 'success');
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 97_000);
      await receiver.waitFor(1);
      assert.equal(
        (await db().selectFrom('events').select('id').where('merchant_id', '=', merchant.id).execute()).length,
        1,
      );
    });

    test('a forged form is refused; an unknown link is a 404 page; an expired link is a 404 page and its charge has failed', async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = cardBody();
      const started = await chargeCard(ctx.gw, merchant.test_secret_key, body);
      const { client, path } = await openThreeDs(ctx.gw, started.body['3ds_auth_link']);
      assert.equal((await client.post(path, { otp: '1234', csrf: 'x'.repeat(32) })).status, 403);
      assert.equal((await client.post(path, { otp: '1234' }, { origin: 'https://evil.example' })).status, 403);
      for (const unknown of [
        '/3ds/auth',
        '/3ds/auth?reference=nope',
        '/3ds/auth?reference=00b1b3d0-1821-48ec-8136-4904ded5923b',
      ]) {
        const page = await client.get(unknown);
        assert.equal(page.status, 404, unknown);
        assert.ok(textOf(page.text).includes('Payment link not found'));
      }
      await db()
        .updateTable('card_authentications')
        .set({ expires_at: Date.now() - 1 })
        .where('reference', '=', started.body.orderReference)
        .execute();
      const expired = await client.get(path);
      assert.equal(expired.status, 404);
      assert.ok(textOf(expired.text).includes('This payment link has expired'));
      assert.equal((await client.post(path, { otp: '1234' })).status, 404);
      const verified = await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id));
      assert.equal(verified.body.data.status, 'failed');
      assert.equal(
        verified.body.data.logs.at(-1).message,
        'Payment failed: The customer did not complete 3-D Secure in time.',
      );
    });

    test("verify finds an expired link's charge failed without the page being opened", async () => {
      const merchant = await ctx.gw.newMerchant();
      const body = cardBody();
      const started = await chargeCard(ctx.gw, merchant.test_secret_key, body);
      await db()
        .updateTable('card_authentications')
        .set({ expires_at: Date.now() - 1 })
        .where('reference', '=', started.body.orderReference)
        .execute();
      assert.equal(
        (await verifyCard(ctx.gw, merchant.test_secret_key, String(body.charge_id))).body.data.status,
        'failed',
      );
    });

    test('a card charge is refunded in full with /charge-card/refund/{id}, and in part; verify shows the refunded amount', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      const full = cardBody();
      await payByDirectCard(ctx.gw, merchant.test_secret_key, full);
      const refunded = await call(ctx.gw.url, `/charge-card/refund/${full.charge_id}`, {
        key: merchant.test_secret_key,
        method: 'POST',
      });
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.body.data.amount, 1000);
      const afterFull = (await verifyCard(ctx.gw, merchant.test_secret_key, String(full.charge_id))).body.data;
      assert.deepEqual(
        [afterFull.status, afterFull.refunded_amount, afterFull.refund_status],
        ['success', 1000, 'full'],
      );

      const partial = cardBody({ amount: 2000 });
      await payByDirectCard(ctx.gw, merchant.test_secret_key, partial);
      const part = await call(ctx.gw.url, `/charge-card/refund/${partial.charge_id}`, {
        key: merchant.test_secret_key,
        body: { amount: 500, reason: 'One item returned' },
      });
      assert.equal(part.status, 200, part.text);
      const afterPart = (await verifyCard(ctx.gw, merchant.test_secret_key, String(partial.charge_id))).body.data;
      assert.deepEqual([afterPart.refunded_amount, afterPart.refund_status], [500, 'partial']);
      await eventually('the refunds to end', async () => {
        const rows = await db().selectFrom('refunds').select('status').where('merchant_id', '=', merchant.id).execute();
        return rows.length === 2 && rows.every((row) => row.status === 'success');
      });
    });

    test("one merchant's key cannot read another's card charge, nor a live key a test one; a mobile money charge is not verified here", async () => {
      const owner = await ctx.gw.newMerchant();
      const other = await ctx.gw.newMerchant();
      const body = cardBody();
      await chargeCard(ctx.gw, owner.test_secret_key, body);
      assert.deepEqual((await verifyCard(ctx.gw, other.test_secret_key, String(body.charge_id))).body, NOT_FOUND);
      assert.equal((await verifyCard(ctx.gw, other.test_secret_key, String(body.charge_id))).status, 404);
      assert.deepEqual((await verifyCard(ctx.gw, owner.live_secret_key, String(body.charge_id))).body, NOT_FOUND);
      const mobile = await call(ctx.gw.url, '/mobile-money/payments/initialize', {
        key: owner.test_secret_key,
        body: {
          mobile: '0990000000',
          mobile_money_operator_ref_id: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
          amount: 1000,
          charge_id: 'a-mobile-charge',
        },
      });
      assert.equal(mobile.status, 201);
      assert.deepEqual(
        (await verifyCard(ctx.gw, owner.test_secret_key, 'a-mobile-charge')).body,
        refusal(
          'charge_id',
          'This payment was not made by card: verify it with GET /mobile-money/payments/{charge_id}/verify.',
        ),
      );
    });

    test('no table holds a card number or a CVV: only the brand, the first six and last four digits, and the expiry', async () => {
      const merchant = await ctx.gw.newMerchant();
      await payByDirectCard(ctx.gw, merchant.test_secret_key, cardBody({ cvv: MARKED_CVV }));
      await payByDirectCard(
        ctx.gw,
        merchant.test_secret_key,
        cardBody({ card_number: TEST_CARD_NUMBERS.mastercardSuccess, cvv: MARKED_CVV }),
        '0000',
      );
      const dump = await dumpAllTables(ctx.gw);
      for (const secret of ['4242424242424242', '4242 4242 4242 4242', '5555555555554444', '5555 5555 5555 4444'])
        assert.ok(!dump.includes(secret), `no ${secret} in the database`);
      const cvv = new RegExp(`.{0,60}${standalone(MARKED_CVV)}.{0,60}`).exec(dump);
      assert.equal(cvv, null, `no CVV in the database: ${cvv?.[0]}`);
      assert.ok(dump.includes('424242******4242'), 'the masked number is there (the dump is real)');
    });
  });
}

describe('direct card charges in the logs', () => {
  test('no card number or CVV in any log line, at debug level, whatever the request', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const gw = await startTestGateway('sqlite', {}, pino({ level: 'debug' }, sink));
    try {
      const merchant: MerchantCredentials = await gw.newMerchant();
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: null }, Date.now());
      await payByDirectCard(gw, merchant.test_secret_key, cardBody({ cvv: MARKED_CVV }));
      await chargeCard(gw, merchant.test_secret_key, cardBody({ cvv: MARKED_CVV, expiry: '01/20' }));
      await chargeCard(gw, merchant.test_secret_key, {
        ...cardBody({ cvv: MARKED_CVV }),
        amount: { nested: '4242424242424242' },
      });
      await call(gw.url, '/charge-card/payments', {
        key: merchant.test_secret_key,
        rawBody: `{"card_number":"4242424242424242","cvv":"${MARKED_CVV}",`,
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(lines.length > 0, 'something was logged');
      const logged = lines.join('');
      assert.ok(
        !logged.includes('4242424242424242') && !logged.includes('4242 4242 4242 4242'),
        'no card number in the logs',
      );
      assert.doesNotMatch(logged, new RegExp(standalone(MARKED_CVV)), 'no CVV in the logs');
    } finally {
      await gw.close();
    }
  });
});
