import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// paychangu-js@2.1.2 (npm, no dependencies). Its index builds the browser popup when imported
// (document.querySelector), so a merchant's Node server imports the two API services directly.
import { LevelAPI } from 'paychangu-js/dist/services/level.js';
import { VerificationAPI } from 'paychangu-js/dist/services/verification.js';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { uniqueRef, TIMESTAMP } from '../helpers/fixtures.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payAtCheckout } from '../helpers/payments.ts';

/** The SDK has no base URL option: it calls fetch with this origin, for creates and verifications alike. */
const PAYCHANGU_ORIGIN = 'https://api.paychangu.com';

interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Points the SDK at the gateway under test the only way it allows: its requests to PayChangu's
 * origin go to ours instead, with method, headers and body exactly as the SDK made them (and
 * recorded, to check its wire format). Every other request passes through untouched.
 */
function rerouteSdk(gatewayUrl: () => string, seen: SeenRequest[]): () => void {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (!url.startsWith(PAYCHANGU_ORIGIN)) return realFetch(input, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    seen.push({ method: init?.method ?? 'GET', url, headers: { ...(init?.headers as Record<string, string>) }, body });
    return realFetch(gatewayUrl() + url.slice(PAYCHANGU_ORIGIN.length), init);
  };
  return () => {
    globalThis.fetch = realFetch;
  };
}

const expectString = (value: unknown, what: string) => assert.equal(typeof value, 'string', `${what} is a string`);

for (const kind of DATABASE_KINDS) {
  describe(`the JavaScript SDK paychangu-js@2.1.2 against a real gateway on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0' });
    const seen: SeenRequest[] = [];
    let restoreFetch: () => void;
    before(() => {
      restoreFetch = rerouteSdk(() => ctx.gw.url, seen);
    });
    after(() => restoreFetch());

    test('a session created with LevelSDK, paid on the hosted page, reads as paid through VerificationSDK', async () => {
      const key = ctx.merchant.test_secret_key;
      const level = LevelAPI.getInstance();
      const verification = VerificationAPI.getInstance();
      level.setSecretKey(key);
      verification.setSecretKey(key);
      const txRef = uniqueRef('js-sdk');
      seen.length = 0;

      const created = await level.initiateTransaction({
        amount: 1000,
        currency: 'MWK',
        email: 'jane@example.com',
        first_name: 'Jane',
        last_name: 'Banda',
        callback_url: 'https://shop.example.com/paid?order=7',
        return_url: 'https://shop.example.com/cancelled',
        tx_ref: txRef,
        customization: { title: 'Order 7', description: 'Two bags of maize' },
        meta: { order_id: 7 },
      });
      // What its LevelResponse type promises the merchant.
      assert.equal(created.status, 'success');
      expectString(created.message, 'message');
      assert.equal(created.data.event, 'checkout.session:created');
      assert.ok(created.data.checkout_url.startsWith(`${ctx.gw.url}/checkout/`), created.data.checkout_url);
      assert.deepEqual(created.data.data, {
        tx_ref: txRef,
        currency: 'MWK',
        amount: 1000,
        mode: 'test',
        status: 'pending',
      });

      const pending = await verification.verifyTransaction(txRef);
      assert.equal(pending.status, 'success');
      assert.equal(pending.data.status, 'pending');

      const landedAt = await payAtCheckout(ctx.gw.url, created.data.checkout_url, TEST_NUMBERS.airtelSuccess);
      assert.ok(landedAt?.startsWith(`https://shop.example.com/paid?order=7&tx_ref=${txRef}&`), String(landedAt));

      // Every field of its VerificationResponse type, with the type it declares.
      const verified = await verification.verifyTransaction(txRef);
      assert.equal(verified.status, 'success');
      expectString(verified.message, 'message');
      const data = verified.data;
      assert.equal(data.event_type, 'checkout.payment');
      assert.equal(data.tx_ref, txRef);
      assert.equal(data.mode, 'test');
      assert.equal(data.type, 'API Payment (Checkout)');
      assert.equal(data.status, 'success');
      assert.equal(data.number_of_attempts, 1);
      assert.match(data.reference, /^\d{11}$/);
      assert.equal(data.currency, 'MWK');
      assert.equal(data.amount, 1000);
      assert.equal(data.charges, 30);
      assert.deepEqual(data.customization, { title: 'Order 7', description: 'Two bags of maize', logo: null });
      assert.deepEqual(data.meta, { order_id: 7 });
      assert.equal(data.authorization.channel, 'Mobile Money');
      assert.equal(data.authorization.provider, 'Airtel Money');
      assert.equal(data.authorization.mobile_number, '+265990xxxx00');
      assert.match(data.authorization.completed_at, TIMESTAMP);
      assert.deepEqual(data.customer, { email: 'jane@example.com', first_name: 'Jane', last_name: 'Banda' });
      assert.ok(data.logs.length >= 2, JSON.stringify(data.logs));
      for (const log of data.logs)
        for (const field of ['type', 'message', 'created_at'] as const) expectString(log[field], `logs[].${field}`);
      assert.match(data.created_at, TIMESTAMP);
      assert.match(data.updated_at, TIMESTAMP);

      // What the SDK put on the wire (dist/services/level.js, verification.js): the gateway took it as sent.
      const [create, ...verifies] = seen;
      assert.equal(create?.method, 'POST');
      assert.equal(create?.url, `${PAYCHANGU_ORIGIN}/payment`);
      assert.deepEqual(create?.headers, {
        Accept: 'application/json',
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
      });
      assert.equal((create?.body as { amount: unknown }).amount, 1000, 'a JSON number');
      assert.equal(verifies.length, 2, 'no retries were needed');
      for (const request of verifies) {
        assert.deepEqual([request.method, request.url], ['GET', `${PAYCHANGU_ORIGIN}/verify-payment/${txRef}`]);
        assert.deepEqual(request.headers, { Accept: 'application/json', Authorization: `Bearer ${key}` });
      }
    });
  });
}
