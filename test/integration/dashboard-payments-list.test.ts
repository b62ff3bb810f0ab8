import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { csvRecords } from '../helpers/csv.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeBody, eventually, initializeCharge, TEST_NUMBERS, TNM_REF } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { asChargeRef } from '../../src/shared/ids.ts';

/** Sessions made only to fill pages: more than two pages of 50. */
const FILLER = 120;
const TIME_ZONE = 'Africa/Blantyre';

/** The ids of the rows a list page shows, in its order (each row links to its payment). */
function shownIds(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<a href="\/dashboard\/payments\/([^"]+)">/g)].map((match) => decodeURIComponent(match[1]!));
}

const unescape = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
const pageLink = (html: string, rel: 'next' | 'prev') => {
  const found = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(html)?.[1];
  return found === undefined ? null : unescape(found);
};

for (const kind of DATABASE_KINDS) {
  describe(`dashboard payments list (${kind})`, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;
    let other: MerchantCredentials;
    let browser: DashboardBrowser;
    /** The rows this test made, by role. */
    const made = {} as {
      paidSession: { id: string; txRef: string };
      openSession: { id: string; txRef: string };
      success: { id: string; chargeId: string };
      failed: { id: string; chargeId: string };
      otherTxRef: string;
      formulaTxRef: string;
    };
    const db = () => gw.gateway.database.db;

    const sessionId = async (merchantId: string, txRef: string) =>
      (
        await db()
          .selectFrom('checkout_sessions')
          .select('id')
          .where('merchant_id', '=', merchantId)
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow()
      ).id;
    const chargeRow = (merchantId: string, chargeId: string) =>
      db()
        .selectFrom('charges')
        .select(['id', 'status'])
        .where('merchant_id', '=', merchantId)
        .where('charge_id', '=', chargeId)
        .executeTakeFirstOrThrow();

    async function directCharge(
      mobile: string,
      overrides: Record<string, unknown>,
    ): Promise<{ id: string; chargeId: string }> {
      const body = chargeBody({ mobile, ...overrides });
      const answer = await initializeCharge(gw, shop.test_secret_key, body);
      assert.equal(answer.status, 201, answer.text);
      const chargeId = String(body.charge_id);
      await eventually(`${chargeId} to end`, async () => (await chargeRow(shop.id, chargeId)).status !== 'pending');
      return { id: (await chargeRow(shop.id, chargeId)).id, chargeId };
    }
    async function session(
      merchant: MerchantCredentials,
      overrides: Record<string, unknown>,
    ): Promise<{ id: string; txRef: string }> {
      const body = currentBody(overrides);
      const answer = await call(gw.url, '/payment', { key: merchant.test_secret_key, body });
      assert.equal(answer.status, 201, answer.text);
      return { id: await sessionId(merchant.id, String(body.tx_ref)), txRef: String(body.tx_ref) };
    }
    const list = async (query = '') => {
      const page = await browser.get(`/dashboard/payments${query ? `?${query}` : ''}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      return page;
    };
    /** Every page of the list from the first, following Older: the ids in order. */
    async function everyPage(query: string): Promise<{ ids: string[]; pages: string[][]; lastPath: string }> {
      const pages: string[][] = [];
      let lastPath = `/dashboard/payments?${query}`;
      for (let path: string | null = lastPath; path !== null;) {
        lastPath = path;
        const page = await browser.get(path);
        assert.equal(page.status, 200);
        pages.push(shownIds(page.text));
        path = pageLink(page.text, 'next');
      }
      return { ids: pages.flat(), pages, lastPath };
    }
    async function csv(
      query: string,
    ): Promise<{ header: string[]; rows: Array<Record<string, string>>; text: string; headers: Headers }> {
      const answer = await browser.get(`/dashboard/payments.csv?${query}`);
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      const { header, records } = csvRecords(answer.text);
      return { header, rows: records, text: answer.text, headers: answer.headers };
    }

    before(async () => {
      gw = await startTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms', TIMEZONE: TIME_ZONE });
      shop = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
      // Oldest first: the filler, then the rows the filters pick out.
      for (let index = 0; index < FILLER; index++)
        await session(shop, { tx_ref: `fill-${index}`, amount: 700, email: `filler${index}@example.com` });
      made.formulaTxRef = `-formula-${Date.now()}`;
      await session(shop, { tx_ref: made.formulaTxRef, amount: 700 });
      made.openSession = await session(shop, { amount: 5000, email: 'open@example.com' });
      const paid = await payByMobileMoney(gw.url, shop.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 1200,
        email: 'Alice@Example.com',
      });
      made.paidSession = { id: await sessionId(shop.id, paid.txRef), txRef: paid.txRef };
      made.success = await directCharge(TEST_NUMBERS.tnmSuccess, {
        amount: 1000,
        email: 'bob@example.com',
        mobile_money_operator_ref_id: TNM_REF,
      });
      made.failed = await directCharge(TEST_NUMBERS.airtelFailed, { amount: 2500, email: 'carol@example.com' });
      made.otherTxRef = (await session(other, { amount: 900 })).txRef;
      const owner = await dashboardUser(gw, 'viewer', shop.id);
      browser = new DashboardBrowser(gw.url);
      assert.equal((await browser.signIn(owner, DASHBOARD_PASSWORD)).location, '/dashboard');
    });
    after(() => gw.close());

    test('one list of sessions and direct charges, newest first, each row linking to its payment, with its status badge', async () => {
      const page = await list();
      const ids = shownIds(page.text);
      assert.equal(ids.length, 50, 'a page holds 50');
      assert.deepEqual(ids.slice(0, 4), [made.failed.id, made.success.id, made.paidSession.id, made.openSession.id]);
      const attempts = await db()
        .selectFrom('charges')
        .select('id')
        .where('session_id', '=', made.paidSession.id)
        .execute();
      assert.ok(
        attempts.length > 0 && attempts.every((attempt) => !ids.includes(attempt.id)),
        'a session’s attempts are not rows of their own',
      );
      assert.match(
        page.text,
        new RegExp(`<a href="/dashboard/payments/${made.success.id}">${made.success.chargeId}</a>`),
      );
      assert.match(page.text, /<span class="status status-failed">Failed<\/span>/);
      assert.match(page.text, /<span class="status status-success">Successful<\/span>/);
      assert.match(page.text, /Checkout &#183; Mobile money/);
      assert.match(page.text, /bob@example\.com/);
      assert.match(page.text, /MWK 2,500\.00/);
      assert.match(page.text, /in <strong>test<\/strong> mode/);
      assert.match(page.text, /<form class="filters payment-filters" method="get"/);
      assert.match(page.text, /href="\/dashboard\/payments\.csv">Export CSV/);
    });

    test('each filter narrows the list: status, channel, amount range, date range', async () => {
      assert.deepEqual(shownIds((await list('status=failed')).text), [made.failed.id]);
      assert.deepEqual(shownIds((await list('status=success')).text), [made.success.id, made.paidSession.id]);
      assert.deepEqual(
        shownIds((await list('channel=mobile_money')).text),
        [made.failed.id, made.success.id, made.paidSession.id],
        'a session counts by the channel that paid it',
      );
      assert.deepEqual(shownIds((await list('channel=card')).text), []);
      assert.deepEqual(shownIds((await list('min=1000&max=2500')).text), [
        made.failed.id,
        made.success.id,
        made.paidSession.id,
      ]);
      assert.deepEqual(shownIds((await list('min=1000.01&max=2499.99')).text), [made.paidSession.id]);
      assert.deepEqual(
        shownIds((await list('status=success&min=1100')).text),
        [made.paidSession.id],
        'filters combine',
      );
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(Date.now());
      const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(Date.now() + 86_400_000);
      assert.equal(shownIds((await list(`from=${today}&to=${today}&status=failed`)).text).length, 1);
      assert.deepEqual(shownIds((await list(`from=${tomorrow}`)).text), []);
      assert.deepEqual(shownIds((await list('to=2020-01-01')).text), []);
      assert.match((await list('status=failed&q=nothing-like-this')).text, /No payment matches these filters\./);
    });

    test('find a payment by tx_ref, charge id, reference, customer email or phone (dashboard-search.test.ts has the rest)', async () => {
      assert.deepEqual(shownIds((await list(`q=${made.paidSession.txRef}`)).text), [made.paidSession.id]);
      assert.deepEqual(shownIds((await list(`q=${made.success.chargeId}`)).text), [made.success.id]);
      const reference = (
        await db()
          .selectFrom('charges')
          .select('ref_id')
          .where('id', '=', asChargeRef(made.failed.id))
          .executeTakeFirstOrThrow()
      ).ref_id;
      assert.deepEqual(shownIds((await list(`q=${reference}`)).text), [made.failed.id]);
      assert.deepEqual(
        shownIds((await list('q=alice%40example.com')).text),
        [made.paidSession.id],
        'email, whatever its case',
      );
      assert.deepEqual(
        shownIds((await list('q=%2B265899817565')).text),
        [made.success.id],
        'a number in any form finds its masked match',
      );
      assert.deepEqual(
        shownIds((await list(`q=${TEST_NUMBERS.airtelSuccess}`)).text),
        [made.paidSession.id],
        'the number that paid a session finds it',
      );
      const fills = ['fill-1', ...Array.from({ length: 10 }, (_, i) => `fill-1${i}`)];
      fills.push(...Array.from({ length: 20 }, (_, i) => `fill-1${String(i).padStart(2, '0')}`));
      assert.deepEqual(
        shownIds((await list('q=fill-1')).text).sort(),
        (await Promise.all(fills.map((txRef) => sessionId(shop.id, txRef)))).sort(),
        'a prefix finds every tx_ref it begins',
      );
    });

    test('keyset pages neither repeat nor skip a row, Older then Newer', async () => {
      const { ids, pages, lastPath } = await everyPage('');
      assert.ok(pages.length >= 3, `${pages.length} pages`);
      assert.equal(ids.length, FILLER + 5);
      assert.equal(new Set(ids).size, ids.length, 'no row twice');
      const stored = await db()
        .selectFrom('checkout_sessions')
        .select('id')
        .where('merchant_id', '=', shop.id)
        .execute();
      assert.equal(stored.length + 2, ids.length, 'every session and both direct charges');
      // Back from the last page by Newer links, the same pages in reverse.
      let path = pageLink((await browser.get(lastPath)).text, 'prev');
      assert.ok(path);
      const back: string[][] = [];
      while (path !== null) {
        const page = await browser.get(path);
        back.unshift(shownIds(page.text));
        path = pageLink(page.text, 'prev');
      }
      assert.deepEqual(back, pages.slice(0, -1), 'Newer retraces the pages');
      assert.doesNotMatch((await list()).text, /rel="prev"/, 'the first page has no Newer link');
    });

    test('CSV export matching the filtered list, every page of it, safe to open in a spreadsheet', async () => {
      const all = await csv('');
      assert.match(all.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(all.headers.get('content-disposition') ?? '', /^attachment; filename="payments-test\.csv"$/);
      assert.deepEqual(all.header.slice(0, 3), ['id', 'type', 'created_at']);
      assert.deepEqual(
        all.rows.map((row) => row.id),
        (await everyPage('')).ids,
        'the same ids in the same order, beyond the first page',
      );
      const pending = await csv('status=pending&max=700');
      assert.equal(pending.rows.length, FILLER + 1);
      assert.deepEqual(
        pending.rows.map((row) => row.id),
        (await everyPage('status=pending&max=700')).ids,
      );
      const failed = await csv('status=failed');
      assert.equal(failed.rows.length, 1);
      assert.deepEqual(
        {
          id: failed.rows[0]!.id,
          type: failed.rows[0]!.type,
          merchant_reference: failed.rows[0]!.merchant_reference,
          email: failed.rows[0]!.email,
          mobile: failed.rows[0]!.mobile,
          channel: failed.rows[0]!.channel,
          amount: failed.rows[0]!.amount,
          fee: failed.rows[0]!.fee,
          status: failed.rows[0]!.status,
        },
        {
          id: made.failed.id,
          type: 'direct_charge',
          merchant_reference: made.failed.chargeId,
          email: 'carol@example.com',
          mobile: "'+265990xxxx01",
          channel: 'mobile_money',
          amount: '2500.00',
          fee: '',
          status: 'failed',
        },
      );
      const formula = await csv(`q=${made.formulaTxRef}`);
      assert.match(
        formula.text,
        new RegExp(`,'${made.formulaTxRef},`),
        'a cell a spreadsheet would run as a formula starts with an apostrophe',
      );
      assert.match(
        (await list('status=success&q=bob%40example.com')).text,
        /href="\/dashboard\/payments\.csv\?status=success&amp;q=bob%40example\.com">Export CSV/,
        'the export link carries the filters',
      );
    });

    test("a merchant's user never sees another merchant's payments", async () => {
      assert.deepEqual(shownIds((await list(`q=${made.otherTxRef}`)).text), []);
      assert.doesNotMatch((await csv('')).text, new RegExp(made.otherTxRef));
      const theirs = new DashboardBrowser(gw.url);
      await theirs.signIn(await dashboardUser(gw, 'owner', other.id), DASHBOARD_PASSWORD);
      const page = await theirs.get('/dashboard/payments');
      assert.deepEqual(shownIds(page.text), [await sessionId(other.id, made.otherTxRef)]);
    });

    test('test and live are separate lists: the mode switch is the mode filter', async () => {
      const template = await db()
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', made.openSession.id)
        .executeTakeFirstOrThrow();
      const live = {
        ...template,
        id: `${template.id.slice(0, 9)}LiveLiveLiveLiveLive12`,
        mode: 'live' as const,
        tx_ref: `live-${Date.now()}`,
        reference: '99999999999',
      };
      await db().insertInto('checkout_sessions').values(live).execute();
      assert.ok(!shownIds((await list()).text).includes(live.id));
      const viewer = new DashboardBrowser(gw.url);
      await viewer.signIn(await dashboardUser(gw, 'viewer', shop.id), DASHBOARD_PASSWORD);
      await viewer.get('/dashboard/payments');
      assert.equal(
        (await viewer.post('/dashboard/mode', { mode: 'live', back: '/dashboard/payments' })).location,
        '/dashboard/payments',
      );
      const page = await viewer.get('/dashboard/payments');
      assert.deepEqual(shownIds(page.text), [live.id]);
      assert.match(page.text, /in <strong>live<\/strong> mode/);
      const exported = await viewer.get('/dashboard/payments.csv');
      assert.deepEqual(
        csvRecords(exported.text).records.map((row) => row.id),
        [live.id],
      );
      assert.match(exported.headers.get('content-disposition') ?? '', /payments-live\.csv/);
    });

    test('a range the wrong way round (dates, amounts) is ignored with a message saying why, rather than showing nothing', async () => {
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(Date.now());
      const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(Date.now() - 86_400_000);
      const page = await list(`from=${today}&to=${yesterday}&min=2500&max=1000`);
      assert.ok(
        page.text.includes(
          escapeQuotes(
            `The from date "${today}" is after the to date "${yesterday}", so no payment could match; both dates were ignored.`,
          ),
        ),
        'says why the dates were ignored',
      );
      assert.ok(
        page.text.includes(
          escapeQuotes(
            'The least amount "2500" is more than the greatest "1000", so no payment could match; both amounts were ignored.',
          ),
        ),
        'and the amounts',
      );
      assert.deepEqual(shownIds(page.text), shownIds((await list()).text), 'the list as if unfiltered');
      assert.deepEqual(
        shownIds((await list(`from=${today}&to=${today}&min=2500&max=2500`)).text),
        [made.failed.id],
        'a range of one day and one amount is not reversed',
      );
    });

    test('filters that cannot be read are ignored with a message, never an error', async () => {
      const page = await list(
        'status=refunded&channel=cash&from=2026-02-30&to=yesterday&min=abc&max=1e9&before=nonsense',
      );
      for (const said of [
        'status "refunded"',
        'channel "cash"',
        'from date "2026-02-30"',
        'to date "yesterday"',
        'least amount "abc"',
        'greatest amount "1e9"',
        'page link is not one of ours',
      ]) {
        assert.ok(page.text.includes(escapeQuotes(said)), `says: ${said}`);
      }
      assert.deepEqual(shownIds(page.text), shownIds((await list()).text), 'the list as if unfiltered');
      assert.equal((await browser.get('/dashboard/payments.csv?status=refunded&min=abc')).status, 200);
      assert.equal((await browser.get('/dashboard/payments?before=1_%27%20or%201%3D1')).status, 200);
    });
  });
}

function escapeQuotes(text: string): string {
  return text.replace(/"/g, '&quot;');
}
