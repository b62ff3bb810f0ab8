import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS, verify, walletBalance } from '../helpers/mobile-money.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { payAtCheckout, payByCard, payByMobileMoney } from '../helpers/payments.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { formatMoneyText } from '../../src/shared/money.ts';

/** A direct test charge through the API, ended at once by the sandbox as `outcome` says; its charge_id. */
async function directCharge(
  gw: TestGateway,
  merchant: MerchantCredentials,
  amount: number,
  outcome: 'success' | 'failed',
): Promise<string> {
  const body = chargeBody({
    amount,
    mobile: outcome === 'success' ? TEST_NUMBERS.airtelSuccess : TEST_NUMBERS.airtelFailed,
  });
  const created = await initializeCharge(gw, merchant.test_secret_key, body);
  assert.equal(created.status, 201, created.text);
  const verified = await verify(gw, merchant.test_secret_key, String(body.charge_id), outcome);
  assert.equal(verified.body.data.status, outcome, verified.text);
  return String(body.charge_id);
}

/** The text of a card on the overview: its label's paragraph and the figure after it. */
function cardFigure(html: string, label: string): string {
  const match = new RegExp(`<p class="muted">${label}</p><p class="figure">(.*?)</p><p class="hint">(.*?)</p>`).exec(
    html,
  );
  assert.ok(match, `the overview has a "${label}" card`);
  return `${match[1]} | ${match[2]}`;
}

const ZONE = 'Pacific/Kiritimati';

for (const kind of DATABASE_KINDS) {
  describe(`dashboard overview (${kind})`, () => {
    let gw: TestGateway;

    before(async () => {
      // Fourteen hours ahead of UTC: days counted in UTC would put most hours' payments on the wrong date.
      gw = await startTestGateway(kind, { TIMEZONE: ZONE });
    });
    after(async () => {
      await assertLedgerBalanced(gw);
      await gw.close();
    });

    async function ownerOf(merchant: MerchantCredentials): Promise<DashboardBrowser> {
      const browser = new DashboardBrowser(gw.url);
      assert.equal(
        (await browser.signIn(await dashboardUser(gw, 'owner', merchant.id), DASHBOARD_PASSWORD)).location,
        '/dashboard',
      );
      return browser;
    }

    test('before any payment: zero balances, no volume, no success rate, an empty chart and no recent payments', async () => {
      const merchant = await gw.newMerchant('Quiet Shop');
      const home = await (await ownerOf(merchant)).get('/dashboard');
      assert.equal(home.status, 200);
      assert.match(home.text, /for <strong>Quiet Shop<\/strong>\. Every figure below is test data\./);
      assert.equal(cardFigure(home.text, 'Collection balance \\(MWK\\)'), 'MWK 0.00 | Collected, not yet settled');
      assert.equal(cardFigure(home.text, 'Main balance \\(MWK\\)'), 'MWK 0.00 | Available for payouts and refunds');
      assert.equal(cardFigure(home.text, 'Today: volume'), 'MWK 0.00 | Successful payments');
      assert.equal(cardFigure(home.text, 'Today: success rate'), '— | No payment succeeded or failed.');
      assert.equal(cardFigure(home.text, 'Last 30 days: success rate'), '— | No payment succeeded or failed.');
      assert.ok(!home.text.includes('<svg'), 'no empty axes');
      assert.match(
        home.text,
        /<figure class="chart chart-empty"><figcaption id="volume-chart-summary">No test payment succeeded or failed in the last 30 days\.<\/figcaption><\/figure>/,
        'the chart says why it is empty',
      );
      assert.match(home.text, /No test payments yet\./);
    });

    test('sandbox payments through the API: volume, success rate, balances, the chart and the recent payments add up', async () => {
      const merchant = await gw.newMerchant('Busy Shop');
      const paid = [
        await directCharge(gw, merchant, 1000, 'success'),
        await directCharge(gw, merchant, 2500, 'success'),
      ];
      const failed = await directCharge(gw, merchant, 700, 'failed');
      const session = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 1500,
      });
      const sessionId = (
        await gw.gateway.database.db
          .selectFrom('checkout_sessions')
          .select('id')
          .where('tx_ref', '=', session.txRef)
          .executeTakeFirstOrThrow()
      ).id;

      const browser = await ownerOf(merchant);
      const home = await browser.get('/dashboard');
      assert.equal(home.status, 200);
      // 1,000 + 2,500 + 1,500 succeeded; 700 failed: 3 of 4 finished payments.
      assert.equal(cardFigure(home.text, 'Today: volume'), 'MWK 5,000.00 | Successful payments');
      assert.equal(cardFigure(home.text, 'Last 30 days: volume'), 'MWK 5,000.00 | Successful payments');
      assert.equal(cardFigure(home.text, 'Today: success rate'), '75 % | 3 of 4 succeeded, 1 failed.');
      assert.equal(cardFigure(home.text, 'Last 30 days: success rate'), '75 % | 3 of 4 succeeded, 1 failed.');
      const wallet = await walletBalance(gw, merchant.test_secret_key);
      assert.equal(
        cardFigure(home.text, 'Collection balance \\(MWK\\)'),
        `MWK ${formatMoneyText(Math.round(wallet.collection * 100))} | Collected, not yet settled`,
        'as GET /wallet-balance reads it',
      );
      assert.equal(wallet.main, '0.00', 'nothing settled yet');
      assert.equal(cardFigure(home.text, 'Main balance \\(MWK\\)'), 'MWK 0.00 | Available for payouts and refunds');
      assert.ok(wallet.collection > 0);

      assert.match(
        home.text,
        /<figcaption id="volume-chart-summary">MWK 5,000\.00 from \d{4}-\d\d-\d\d to (\d{4}-\d\d-\d\d); the best day \1 with MWK 5,000\.00\.<\/figcaption>/,
        "today's bar is the whole volume",
      );
      assert.match(home.text, /<td>\d{4}-\d\d-\d\d<\/td><td>MWK 5,000\.00<\/td>/, 'the numbers behind the chart');

      for (const chargeId of [...paid, failed]) {
        const { id } = await gw.gateway.database.db
          .selectFrom('charges')
          .select('id')
          .where('merchant_id', '=', merchant.id)
          .where('charge_id', '=', chargeId)
          .executeTakeFirstOrThrow();
        assert.ok(
          home.text.includes(`<a href="/dashboard/payments/${id}">${chargeId}</a>`),
          `the direct charge ${chargeId} links to its page by its id`,
        );
      }
      assert.ok(
        home.text.includes(`<a href="/dashboard/payments/${sessionId}">${session.txRef}</a>`),
        'the checkout session links to its page by its id',
      );
      assert.ok(home.text.indexOf(sessionId) < home.text.indexOf(paid[0]!), 'newest first');
    });

    test("payments of earlier days count in the last 30 days on their own day in the gateway's time zone, not today; older ones not at all", async () => {
      const merchant = await gw.newMerchant('Steady Shop');
      const today = await directCharge(gw, merchant, 1000, 'success');
      const earlier = await directCharge(gw, merchant, 4000, 'success');
      const old = await directCharge(gw, merchant, 9000, 'failed');
      const now = Date.now();
      const backdate = (chargeId: string, days: number) =>
        gw.gateway.database.db
          .updateTable('charges')
          .set({ created_at: now - days * 86_400_000 })
          .where('merchant_id', '=', merchant.id)
          .where('charge_id', '=', chargeId)
          .execute();
      await backdate(earlier, 3);
      await backdate(old, 40);
      const home = await (await ownerOf(merchant)).get('/dashboard');
      assert.ok(home.text.includes(today));
      assert.equal(cardFigure(home.text, 'Today: volume'), 'MWK 1,000.00 | Successful payments');
      assert.equal(cardFigure(home.text, 'Today: success rate'), '100 % | 1 of 1 succeeded, 0 failed.');
      assert.equal(cardFigure(home.text, 'Last 30 days: volume'), 'MWK 5,000.00 | Successful payments');
      assert.equal(
        cardFigure(home.text, 'Last 30 days: success rate'),
        '100 % | 2 of 2 succeeded, 0 failed.',
        'the failure 40 days ago is outside',
      );
      const localDate = (epochMs: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(epochMs);
      assert.ok(
        home.text.includes(`<td>${localDate(now - 3 * 86_400_000)}</td><td>MWK 4,000.00</td>`),
        'the earlier payment on its own day',
      );
      assert.ok(home.text.includes(`<td>${localDate(now)}</td><td>MWK 1,000.00</td>`), "today's on today");
      assert.match(home.text, new RegExp(`the best day ${localDate(now - 3 * 86_400_000)} with MWK 4,000\\.00`));
    });

    test('another currency: its volume and balances apart from MWK, and the chart in it when it is the one paid in', async () => {
      const merchant = await gw.newMerchant('Tourist Shop');
      await payByCard(gw.url, merchant.test_secret_key, { currency: 'USD', amount: 20 });
      const home = await (await ownerOf(merchant)).get('/dashboard');
      assert.equal(cardFigure(home.text, 'Today: volume'), 'USD 20.00 | Successful payments');
      assert.equal(cardFigure(home.text, 'Collection balance \\(MWK\\)'), 'MWK 0.00 | Collected, not yet settled');
      const usd = await walletBalance(gw, merchant.test_secret_key, 'USD');
      assert.ok(usd.collection > 0);
      assert.equal(
        cardFigure(home.text, 'Collection balance \\(USD\\)'),
        `USD ${formatMoneyText(Math.round(usd.collection * 100))} | Collected, not yet settled`,
      );
      assert.match(home.text, /<title id="volume-chart-title">Successful payments per day, USD, last 30 days<\/title>/);
    });

    test('the mode switch shows only the chosen mode: live shows none of the test payments', async () => {
      const merchant = await gw.newMerchant('Switching Shop');
      const charge = await directCharge(gw, merchant, 1200, 'success');
      const browser = await ownerOf(merchant);
      assert.ok((await browser.get('/dashboard')).text.includes(charge));
      const switched = await browser.post('/dashboard/mode', { mode: 'live', back: '/dashboard' });
      assert.equal(switched.location, '/dashboard');
      const live = await browser.get('/dashboard');
      assert.match(live.text, /Every figure below is live data\./);
      assert.ok(!live.text.includes(charge), 'the test charge is not on the live overview');
      assert.equal(cardFigure(live.text, 'Today: volume'), 'MWK 0.00 | Successful payments');
      assert.equal(cardFigure(live.text, 'Collection balance \\(MWK\\)'), 'MWK 0.00 | Collected, not yet settled');
      assert.match(live.text, /No live payments yet\./);
      await browser.post('/dashboard/mode', { mode: 'test', back: '/dashboard' });
      assert.equal(
        cardFigure((await browser.get('/dashboard')).text, 'Today: volume'),
        'MWK 1,200.00 | Successful payments',
      );
    });

    test('a session the customer cancelled or let expire is counted apart from the success rate, and every page names each status with the same words', async () => {
      const merchant = await gw.newMerchant('Mixed Shop');
      const db = gw.gateway.database.db;
      const sessionOf = async (txRef: string) =>
        (await db.selectFrom('checkout_sessions').select('id').where('tx_ref', '=', txRef).executeTakeFirstOrThrow())
          .id;
      /** A new session and a customer on its page; the session's id and the page's path. */
      async function opened(): Promise<{ id: string; path: string; customer: CheckoutClient }> {
        const body = currentBody();
        const created = await call(gw.url, '/payment', { key: merchant.test_secret_key, body });
        assert.equal(created.status, 201, created.text);
        const customer = new CheckoutClient(gw.url);
        const path = new URL(created.body.data.checkout_url).pathname;
        assert.equal((await customer.get(path)).status, 200);
        return { id: await sessionOf(String(body.tx_ref)), path, customer };
      }
      const paid = await directCharge(gw, merchant, 1000, 'success');
      const declined = await directCharge(gw, merchant, 700, 'failed');
      const cancelled = await opened();
      assert.equal((await cancelled.customer.post(`${cancelled.path}/cancel`, {})).status, 303);
      const expired = await opened();
      await db
        .updateTable('checkout_sessions')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', expired.id)
        .execute();
      await expired.customer.get(expired.path);
      const tried = await opened();
      for (let attempt = 0; attempt < 3; attempt++)
        await payAtCheckout(gw.url, `${gw.url}${tried.path}`, TEST_NUMBERS.airtelFailed);
      const statuses = await db
        .selectFrom('checkout_sessions')
        .select(['id', 'status'])
        .where('merchant_id', '=', merchant.id)
        .execute();
      assert.deepEqual(
        statuses.map((row) => row.status),
        ['failed', 'failed', 'failed'],
        'the API says failed for all three',
      );

      const browser = await ownerOf(merchant);
      const home = await browser.get('/dashboard');
      // 1,000 succeeded; the 700 charge and the session whose three tries failed failed; the other two are not counted.
      assert.equal(
        cardFigure(home.text, 'Today: success rate'),
        '33.3 % | 1 of 3 succeeded, 2 failed. Not counted: 1 cancelled, 1 expired.',
      );
      assert.equal(
        cardFigure(home.text, 'Last 30 days: success rate'),
        '33.3 % | 1 of 3 succeeded, 2 failed. Not counted: 1 cancelled, 1 expired.',
      );
      const chargeIds = new Map(
        (
          await db.selectFrom('charges').select(['id', 'charge_id']).where('merchant_id', '=', merchant.id).execute()
        ).map((row) => [row.charge_id, row.id]),
      );
      const expected: Array<[string, string, string]> = [
        [chargeIds.get(paid)!, 'success', 'Successful'],
        [chargeIds.get(declined)!, 'failed', 'Failed'],
        [cancelled.id, 'cancelled', 'Cancelled'],
        [expired.id, 'expired', 'Expired'],
        [tried.id, 'failed', 'Failed'],
      ];
      const list = await browser.get('/dashboard/payments');
      for (const [id, status, word] of expected) {
        const badge = `<span class="status status-${status}">${word}</span>`;
        const rowOf = (html: string) =>
          html.split('<tr>').find((row) => row.includes(`/dashboard/payments/${id}"`)) ?? '';
        assert.ok(rowOf(home.text).includes(badge), `the overview's recent payments: ${word} for ${id}`);
        assert.ok(rowOf(list.text).includes(badge), `the payments list: ${word} for ${id}`);
        assert.match(
          (await browser.get(`/dashboard/payments/${id}`)).text,
          new RegExp(`<h1>Payment [^<]+ ${badge}</h1>`),
          `the payment's page: ${word}`,
        );
      }
      const shown = async (query: string) =>
        [
          ...(await browser.get(`/dashboard/payments?${query}`)).text.matchAll(
            /<a href="\/dashboard\/payments\/([^"]+)">/g,
          ),
        ]
          .map((match) => match[1])
          .sort();
      assert.deepEqual(await shown('status=cancelled'), [cancelled.id]);
      assert.deepEqual(await shown('status=expired'), [expired.id]);
      assert.deepEqual(await shown('status=failed'), [chargeIds.get(declined)!, tried.id].sort());
      assert.match((await browser.get('/dashboard/payments')).text, /<option value="cancelled">Cancelled<\/option>/);
      const [header, row] = (await browser.get('/dashboard/payments.csv?status=cancelled')).text.split('\r\n');
      const csv = row!.split(',');
      assert.deepEqual([csv[0], csv[header!.split(',').indexOf('status')]], [cancelled.id, 'cancelled']);
    });

    test('every role of the merchant may read the overview', async () => {
      const merchant = await gw.newMerchant('Team Shop');
      for (const role of ['developer', 'viewer'] as const) {
        const browser = new DashboardBrowser(gw.url);
        await browser.signIn(await dashboardUser(gw, role, merchant.id), DASHBOARD_PASSWORD);
        const home = await browser.get('/dashboard');
        assert.equal(home.status, 200, role);
        assert.match(home.text, /Today: volume/);
      }
    });
  });
}
