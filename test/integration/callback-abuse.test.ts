import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { CALLBACK_ASK_WINDOW_MS } from '../../src/core/provider-asks.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { startUpstreamPaychangu, type UpstreamPaychangu } from '../fakes/upstream-paychangu.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { freshAirtelNumber, liveAirtelEnv } from '../helpers/live-airtel.ts';
import {
  chargeBody,
  chargeRows,
  eventCount,
  eventually,
  initializeCharge,
  TEST_NUMBERS,
  TNM_REF,
} from '../helpers/mobile-money.ts';
import { startServe } from '../helpers/serve-process.ts';

/**
 * Callbacks as an attacker sends them: Airtel's route without AIRTEL_CALLBACK_SECRET accepts
 * anything shaped like a callback, so forged ones must cost the operator little, and no route may
 * make another connector's operator answer. The settler's first ask is an hour away, so every
 * question the operators get here was caused by a callback.
 */
for (const kind of DATABASE_KINDS) {
  describe(`callbacks nobody can trust on ${kind}`, () => {
    let airtel: FakeAirtel;
    let upstream: UpstreamPaychangu;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      airtel = await startFakeAirtel({ callbackSecret: null });
      upstream = await startUpstreamPaychangu();
      const env: Record<string, string> = {
        ...liveAirtelEnv(airtel),
        ...upstream.liveEnv('airtel:airtel,tnm:paychangu'),
        LIVE_SYNC_FIRST: '1h',
        LIVE_SYNC_MAX: '1h',
      };
      delete env.AIRTEL_CALLBACK_SECRET;
      gw = await startTestGateway(kind, env);
      airtel.callbacksTo(`${gw.url}/callbacks/airtel`);
      merchant = await gw.newMerchant('Live Shop');
    });
    after(async () => {
      await assertLedgerBalanced(gw);
      await gw.close();
      await upstream.close();
      await airtel.close();
    });

    const liveCharge = async (body: Record<string, unknown>): Promise<Charge> => {
      const created = await initializeCharge(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      return row(String(body.charge_id));
    };
    const row = async (chargeId: string): Promise<Charge> => {
      const [found] = await chargeRows(gw, merchant.id, chargeId);
      assert.ok(found, `no charge ${chargeId}`);
      return found;
    };
    const forgedAirtel = (id: string) =>
      call(gw.url, '/callbacks/airtel', {
        body: { transaction: { id, message: 'Paid MWK 1000', status_code: 'TS', airtel_money_id: 'MP-forged' } },
      });
    const signedPaychangu = (event: Record<string, unknown>) => {
      const payload = JSON.stringify(event);
      const signature = createHmac('sha256', upstream.merchant.webhook_secret).update(payload).digest('hex');
      return call(gw.url, '/callbacks/paychangu', {
        rawBody: payload,
        headers: { 'content-type': 'application/json', Signature: signature },
      });
    };

    test('300 forged callbacks about one pending charge ask Airtel at most once per window, and the real callback still completes it within the window', async () => {
      const customer = freshAirtelNumber();
      airtel.script(customer.local, { approveAfterMs: 3_600_000 });
      const charge = await liveCharge(chargeBody({ mobile: customer.mobile }));
      const started = Date.now();
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(Array.from({ length: 30 }, () => forgedAirtel(charge.id)));
        assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200]);
      }
      const elapsed = Date.now() - started;
      const enquiries = airtel.transaction(charge.id)!.enquiries;
      // One ask a callback makes per window begun, and the settler's at the end of each.
      assert.ok(
        enquiries >= 1 && enquiries <= 2 * Math.ceil(elapsed / CALLBACK_ASK_WINDOW_MS),
        `${enquiries} enquiries in ${elapsed} ms`,
      );
      assert.equal((await row(charge.charge_id)).status, 'pending', 'Airtel still says TIP');

      airtel.approve(charge.id);
      assert.deepEqual(await airtel.sendCallback(charge.id, { secret: null }), [200]);
      const paid = await eventually(
        'the payment to complete',
        async () => ((await row(charge.charge_id)).status === 'success' ? row(charge.charge_id) : null),
        CALLBACK_ASK_WINDOW_MS + 3_000,
      );
      assert.equal(paid.trans_id, airtel.transaction(charge.id)!.airtelMoneyId);
      assert.equal(await eventCount(gw, paid), 1);
    });

    test("a real callback arriving while a forged one's question to Airtel is under way asks nothing more, and the payment completes at the window's end", async () => {
      const customer = freshAirtelNumber();
      airtel.script(customer.local, { approveAfterMs: 3_600_000 });
      const charge = await liveCharge(chargeBody({ mobile: customer.mobile }));
      airtel.answerAfter(1_500);
      try {
        const forged = forgedAirtel(charge.id);
        await eventually(
          'the forged callback to ask Airtel',
          async () => airtel.transaction(charge.id)!.enquiries === 1,
        );
        airtel.approve(charge.id);
        assert.deepEqual(await airtel.sendCallback(charge.id, { secret: null }), [200]);
        assert.equal(
          airtel.transaction(charge.id)!.enquiries,
          1,
          "Airtel is being asked already: the real callback leaves the next question to the window's end",
        );
        assert.equal((await forged).status, 200);
      } finally {
        airtel.answerAfter(0);
      }
      // The forged callback's answer (TIP) came after the real callback: it must not put the next question off for an hour.
      const paid = await eventually(
        'the payment to complete',
        async () => ((await row(charge.charge_id)).status === 'success' ? row(charge.charge_id) : null),
        CALLBACK_ASK_WINDOW_MS + 3_000,
      );
      assert.equal(paid.trans_id, airtel.transaction(charge.id)!.airtelMoneyId);
    });

    test("Airtel's callback route naming a charge routed to PayChangu asks PayChangu nothing, and is answered as an unknown reference", async () => {
      const charge = await liveCharge(
        chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF }),
      );
      const readsBefore = await upstream.readsAnswered();
      const named = await forgedAirtel(charge.id);
      const unknown = await forgedAirtel('no-such-charge');
      assert.equal(named.status, 200, named.text);
      assert.deepEqual(named.body, unknown.body, 'nothing tells the caller that the charge exists');
      assert.equal(await upstream.readsAnswered(), readsBefore, 'no query reached PayChangu');
      assert.equal((await row(charge.charge_id)).status, 'pending');
    });

    test("PayChangu's callback route naming a charge routed to Airtel asks Airtel nothing, and is answered as an unknown reference", async () => {
      const customer = freshAirtelNumber();
      airtel.script(customer.local, { states: ['TS'] });
      const charge = await liveCharge(chargeBody({ mobile: customer.mobile }));
      const named = await signedPaychangu({
        event_type: 'api.charge.payment',
        charge_id: charge.id,
        status: 'success',
      });
      const unknown = await signedPaychangu({
        event_type: 'api.charge.payment',
        charge_id: 'no-such-charge',
        status: 'success',
      });
      assert.equal(named.status, 200, named.text);
      assert.deepEqual(named.body, unknown.body, 'nothing tells the caller that the charge exists');
      assert.equal(airtel.transaction(charge.id)!.enquiries, 0, 'no enquiry reached Airtel');
      assert.equal((await row(charge.charge_id)).status, 'pending');
    });

    test("30 copies of the upstream's refund webhook arriving at once ask PayChangu about the refund once, and it completes", async () => {
      const charge = await liveCharge(
        chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF, amount: 2000 }),
      );
      await eventually('the upstream to take the payment', async () => {
        await signedPaychangu({ event_type: 'api.charge.payment', charge_id: charge.id, status: 'success' });
        return (await row(charge.charge_id)).status === 'success';
      });
      const created = await call(gw.url, '/refunds', {
        key: merchant.live_secret_key,
        body: { charge_id: charge.charge_id, amount: 1000 },
      });
      assert.equal(created.status, 201, created.text);
      const refund = gw.gateway.database.db
        .selectFrom('refunds')
        .selectAll()
        .where('refund_id', '=', String(created.body.data.refund_id));
      const { id } = await refund.executeTakeFirstOrThrow();
      const hook = await eventually('the upstream to send its refund webhook', async () =>
        upstream.webhooks.received.find((received) => JSON.parse(received.body).reason === `Lipira refund ${id}`),
      );
      assert.equal(
        (await refund.executeTakeFirstOrThrow()).status,
        'pending',
        'the settler asks in an hour: only the webhook can end it',
      );
      const readsBefore = await upstream.readsAnswered();
      const copies = await Promise.all(
        Array.from({ length: 30 }, () =>
          call(gw.url, '/callbacks/paychangu', {
            rawBody: hook.body,
            headers: { 'content-type': 'application/json', Signature: String(hook.headers.signature) },
          }),
        ),
      );
      assert.deepEqual([...new Set(copies.map((answer) => answer.status))], [200]);
      assert.equal(await upstream.readsAnswered(), readsBefore + 1, 'one question about the refund');
      assert.equal((await refund.executeTakeFirstOrThrow()).status, 'success');
    });
  });
}

describe('lipira serve with live routes to Airtel', () => {
  const airtelRoutes = { LIVE_ROUTES: 'airtel:airtel', AIRTEL_CLIENT_ID: 'client', AIRTEL_CLIENT_SECRET: 'secret' };

  test('warns at start, in its log and on the terminal, when Airtel callbacks are not authenticated; not once AIRTEL_CALLBACK_SECRET is set', async () => {
    const open = await startServe(airtelRoutes);
    try {
      const warned = await eventually('the warning', async () =>
        open.output.includes('AIRTEL_CALLBACK_SECRET') ? open.output : null,
      );
      const logged = warned
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      assert.ok(
        logged.some((line) => line.level === 40 && /AIRTEL_CALLBACK_SECRET/.test(line.msg)),
        `a warn log line:\n${warned}`,
      );
      const printed = warned.split('\n').find((line) => line.startsWith('lipira: warning:'));
      assert.ok(printed, `a line for the operator:\n${warned}`);
      assert.match(printed, /forged callbacks cannot move money/i);
      assert.match(printed, /AIRTEL_CALLBACK_SECRET/);
    } finally {
      await open.stop();
    }
    const authenticated = await startServe({ ...airtelRoutes, AIRTEL_CALLBACK_SECRET: 'airtel-callback-key' });
    await authenticated.stop();
    assert.doesNotMatch(authenticated.output, /AIRTEL_CALLBACK_SECRET|warning/);
  });
});
