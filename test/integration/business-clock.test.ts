import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createUser } from '../../src/users/user-service.ts';
import { fakeClock } from '../helpers/clock.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';

/** An instant far from today, so that nothing can pass for reading the system's time. */
const START = Date.UTC(2031, 2, 1, 8, 0, 0);

for (const kind of DATABASE_KINDS) {
  describe(`a gateway on a clock of its own on ${kind}`, () => {
    const clock = fakeClock(START);
    const ctx = useTestGateway(kind, { CHECKOUT_TTL: '10m', SANDBOX_MOBILE_DELAY: '30s' }, clock);
    const verify = (txRef: string) =>
      call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key });

    test('a session is made at the clock’s time and expires when the clock passes its lifetime, with no waiting', async () => {
      clock.set(START);
      const body = currentBody();
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      assert.equal(created.status, 201);
      const made = await verify(String(body.tx_ref));
      assert.equal(made.body.data.status, 'pending');
      assert.match(made.body.data.created_at, /^2031-03-01/);

      clock.advance(9 * 60_000);
      assert.equal((await verify(String(body.tx_ref))).body.data.status, 'pending', 'nine minutes in: still open');

      clock.advance(2 * 60_000);
      const page = await new CheckoutClient(ctx.gw.url).get(new URL(created.body.data.checkout_url).pathname);
      assert.match(page.text, /expired/i);
      const expired = await verify(String(body.tx_ref));
      assert.equal(expired.body.data.status, 'failed');
      assert.equal(expired.body.data.logs.at(-1).message, 'The payment link expired');
      assert.match(expired.body.data.logs.at(-1).created_at, /^2031-03-01/);
    });

    test('a set-password link runs out by the clock too', async () => {
      clock.set(START);
      const { link } = await createUser(
        ctx.gw.gateway.database.db,
        { publicBaseUrl: ctx.gw.url },
        { merchantId: ctx.merchant.id, email: `clock-${kind}@example.com`, role: 'viewer' },
        clock.now(),
      );
      const open = () => fetch(link!).then((answer) => answer.status);
      assert.equal(await open(), 200);
      clock.advance(25 * 3_600_000);
      assert.equal(await open(), 404, '25 hours later (links work for 24), it no longer does');
    });
  });
}
