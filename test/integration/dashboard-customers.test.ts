import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withoutCellLabels, type DashboardBrowser } from '../helpers/dashboard.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeBody, initializeCharge, TEST_NUMBERS, TNM_REF, verify } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { ids } from '../../src/shared/ids.ts';

/** The customers a page lists, in its order: each row's link, name, payments, total. */
function shownCustomers(html: string): Array<{ href: string; name: string; payments: string; total: string }> {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(withoutCellLabels(html))?.[1] ?? '';
  return [
    ...body.matchAll(
      /<tr><td><a href="([^"]+)">([^<]+)<\/a><\/td><td><span class="num">(\d+)<\/span><\/td><td><span class="num">([^<]+)<\/span><\/td>/g,
    ),
  ].map(([, href, name, payments, total]) => ({ href: href!, name: name!, payments: payments!, total: total! }));
}

/** The payments a page lists, by the ids their links name. */
function shownPayments(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(withoutCellLabels(html))?.[1] ?? '';
  return [...body.matchAll(/<a href="\/dashboard\/payments\/([^"]+)">/g)].map((match) => match[1]!);
}

const link = (html: string, rel: 'next' | 'prev') =>
  new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard customers (${kind})`, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;
    let other: MerchantCredentials;
    let browser: DashboardBrowser;
    const db = () => gw.gateway.database.db;
    const made = {} as { aliceSessions: string[]; aliceFailed: string; phoneCharge: string; bob: string };

    const sessionOf = async (merchantId: string, txRef: string) =>
      (
        await db()
          .selectFrom('checkout_sessions')
          .select('id')
          .where('merchant_id', '=', merchantId)
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow()
      ).id;
    async function paid(merchant: MerchantCredentials, overrides: Record<string, unknown>) {
      const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, overrides);
      return sessionOf(merchant.id, txRef);
    }
    async function direct(overrides: Record<string, unknown>, ending: 'success' | 'failed') {
      const body = chargeBody(overrides);
      assert.equal((await initializeCharge(gw, shop.test_secret_key, body)).status, 201);
      await verify(gw, shop.test_secret_key, String(body.charge_id), ending);
      return (
        await db()
          .selectFrom('charges')
          .select('id')
          .where('merchant_id', '=', shop.id)
          .where('charge_id', '=', String(body.charge_id))
          .executeTakeFirstOrThrow()
      ).id;
    }
    /** Successful sessions written straight into the database, as many customers as wanted. */
    async function successfulSessions(
      rows: Array<{ email: string; currency?: string; amount?: number; at: number; mode?: 'live' }>,
    ) {
      const template = await db()
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', made.aliceSessions[0]!)
        .executeTakeFirstOrThrow();
      await db()
        .insertInto('checkout_sessions')
        .values(
          rows.map((row, i) => ({
            ...template,
            id: ids.checkoutToken(row.at),
            mode: row.mode ?? 'test',
            tx_ref: `bulk-${row.at}-${i}`,
            reference: ids.reference(),
            email: row.email,
            currency: row.currency ?? 'MWK',
            amount_minor: (row.amount ?? 100) * 100,
            paid_charge_id: null,
            created_at: row.at,
            completed_at: row.at,
          })),
        )
        .execute();
    }
    const customers = async (query = '', as = browser) => {
      const page = await as.get(`/dashboard/customers${query ? `?${query}` : ''}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      return page;
    };

    before(async () => {
      gw = await startTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });
      shop = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
      made.aliceSessions = [
        await paid(shop, { email: 'Alice@Example.com', amount: 1000 }),
        await paid(shop, { email: 'alice@example.com', amount: 2500 }),
      ];
      made.aliceFailed = await direct(
        { email: 'alice@example.com', mobile: TEST_NUMBERS.airtelFailed, amount: 400 },
        'failed',
      );
      made.bob = await direct({ email: 'bob@example.com', amount: 3000 }, 'success');
      made.phoneCharge = await direct(
        { email: undefined, mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF, amount: 1000 },
        'success',
      );
      // Carol never paid: her session is pending.
      assert.equal(
        (
          await call(gw.url, '/payment', {
            key: shop.test_secret_key,
            body: currentBody({ email: 'carol@example.com' }),
          })
        ).status,
        201,
      );
      await paid(other, { email: 'alice@example.com', amount: 9000 });
      browser = await signedInBrowser(gw, 'viewer', shop.id);
    });
    after(() => gw.close());

    test('every customer who paid, most recent first, with their successful payments counted and totalled', async () => {
      const page = await customers();
      assert.match(page.text, /<a href="\/dashboard\/customers" aria-current="page">Customers<\/a>/, 'in the menu');
      assert.deepEqual(shownCustomers(page.text), [
        { href: '/dashboard/customers/%2B265899xxxx65', name: '0899xxxx65', payments: '1', total: 'MWK 1,000.00' },
        {
          href: '/dashboard/customers/bob%40example.com',
          name: 'bob@example.com',
          payments: '1',
          total: 'MWK 3,000.00',
        },
        {
          href: '/dashboard/customers/alice%40example.com',
          name: 'alice@example.com',
          payments: '2',
          total: 'MWK 3,500.00',
        },
      ]);
      assert.doesNotMatch(page.text, /carol/, 'a customer who never paid is not one');
      assert.doesNotMatch(page.text, /9,000|12,500/, "the other merchant's payment is not counted");
    });

    test("a customer's page: their figures, and every payment of theirs linking to its page", async () => {
      const page = await browser.get('/dashboard/customers/alice%40example.com');
      assert.equal(page.status, 200);
      assert.match(page.text, /<dt>Successful payments<\/dt><dd>2<\/dd>/);
      assert.match(page.text, /<dt>Total paid<\/dt><dd>MWK 3,500\.00<\/dd>/);
      assert.deepEqual(shownPayments(page.text).sort(), [...made.aliceSessions, made.aliceFailed].sort());
      const phone = await browser.get('/dashboard/customers/%2B265899xxxx65');
      assert.equal(phone.status, 200);
      assert.deepEqual(shownPayments(phone.text), [made.phoneCharge]);
      for (const path of ['carol%40example.com', 'nobody%40example.com', 'not-a-customer', '%2B265899xxxx66'])
        assert.equal((await browser.get(`/dashboard/customers/${path}`)).status, 404, path);
    });

    test('searched with the payments search', async () => {
      const names = async (text: string) =>
        shownCustomers((await customers(new URLSearchParams({ q: text }).toString())).text).map((row) => row.name);
      assert.deepEqual(await names('ALICE'), ['alice@example.com']);
      assert.deepEqual(await names('example.com'), ['bob@example.com', 'alice@example.com']);
      assert.deepEqual(await names('+265 89 981 7565'), ['0899xxxx65']);
      assert.deepEqual(await names('nobody'), []);
      assert.match((await customers('q=ab')).text, /has no word of 3 characters or more/);
    });

    test('totals per currency, pages of 50 without a repeat or a gap, and each mode its own', async () => {
      const start = Date.now() + 60_000;
      await successfulSessions([
        { email: 'bob@example.com', currency: 'USD', amount: 10, at: start - 120_000 },
        ...Array.from({ length: 55 }, (_, i) => ({ email: `many${i}@example.com`, at: start + i })),
        { email: 'alice@example.com', amount: 777, at: start + 100, mode: 'live' as const },
      ]);
      const first = await customers();
      const firstRows = shownCustomers(first.text);
      assert.equal(firstRows.length, 50);
      assert.deepEqual(firstRows[0], {
        href: '/dashboard/customers/many54%40example.com',
        name: 'many54@example.com',
        payments: '1',
        total: 'MWK 100.00',
      });
      const older = link(first.text, 'next');
      assert.ok(older);
      const second = await browser.get(older);
      const secondRows = shownCustomers(second.text);
      assert.deepEqual(
        [...firstRows, ...secondRows].map((row) => row.name),
        [
          ...Array.from({ length: 55 }, (_, i) => `many${54 - i}@example.com`),
          '0899xxxx65',
          'bob@example.com',
          'alice@example.com',
        ],
      );
      assert.equal(secondRows.find((row) => row.name === 'bob@example.com')!.total, 'MWK 3,000.00 + USD 10.00');
      assert.equal(link(second.text, 'next'), null, 'the last page');
      assert.deepEqual(shownCustomers((await browser.get(link(second.text, 'prev')!)).text), firstRows);

      const live = await signedInBrowser(gw, 'viewer', shop.id);
      await live.get('/dashboard/customers');
      await live.post('/dashboard/mode', { mode: 'live', back: '/dashboard/customers' });
      assert.deepEqual(
        shownCustomers((await customers('', live)).text).map((row) => [row.name, row.total]),
        [['alice@example.com', 'MWK 777.00']],
      );
    });
  });
}
