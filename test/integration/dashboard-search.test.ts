import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DashboardBrowser } from '../helpers/dashboard.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeBody, eventually, initializeCharge, TEST_NUMBERS, TNM_REF, verify } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { INDEX_MATCHES_READ, planSearch } from '../../src/dashboard/payments/payment-search-repository.ts';
import { parsePaymentSearch } from '../../src/dashboard/payments/payment-search.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { ids } from '../../src/shared/ids.ts';

/** The ids of the rows a list page shows, in its order. */
function shownIds(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<a href="\/dashboard\/payments\/([^"]+)">/g)].map((match) => decodeURIComponent(match[1]!));
}

const sorted = (list: string[]) => [...list].sort();

for (const kind of DATABASE_KINDS) {
  describe(`the payments search (${kind})`, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;
    let other: MerchantCredentials;
    let browser: DashboardBrowser;
    const db = () => gw.gateway.database.db;
    /** The payments made, by role: a session's id, a direct charge's internal id. */
    const made = {} as {
      paidBanda: string;
      unpaidPhiri: string;
      mwale: string;
      directBanda: string;
      otherBanda: string;
      liveBanda: string;
    };

    const sessionId = async (merchantId: string, txRef: string) =>
      (
        await db()
          .selectFrom('checkout_sessions')
          .select('id')
          .where('merchant_id', '=', merchantId)
          .where('tx_ref', '=', txRef)
          .executeTakeFirstOrThrow()
      ).id;
    async function session(merchant: MerchantCredentials, overrides: Record<string, unknown>): Promise<string> {
      const body = currentBody(overrides);
      assert.equal((await call(gw.url, '/payment', { key: merchant.test_secret_key, body })).status, 201);
      return sessionId(merchant.id, String(body.tx_ref));
    }
    async function paidSession(merchant: MerchantCredentials, overrides: Record<string, unknown>): Promise<string> {
      const { txRef } = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, overrides);
      return sessionId(merchant.id, txRef);
    }
    const paidCharge = async (sessionId: string) =>
      db()
        .selectFrom('checkout_sessions as s')
        .innerJoin('charges as c', 'c.id', 's.paid_charge_id')
        .select(['c.charge_id', 'c.trans_id'])
        .where('s.id', '=', sessionId)
        .executeTakeFirstOrThrow();
    const search = async (text: string, as = browser) => {
      const page = await as.get(`/dashboard/payments?${new URLSearchParams({ q: text })}`);
      assert.equal(page.status, 200);
      return page;
    };
    const found = async (text: string, as = browser) => sorted(shownIds((await search(text, as)).text));

    before(async () => {
      gw = await startTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms' });
      shop = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
      made.paidBanda = await paidSession(shop, {
        tx_ref: 'order-1001',
        first_name: 'Chikondi',
        last_name: 'Banda',
        email: 'Chikondi.Banda@Example.com',
      });
      made.unpaidPhiri = await session(shop, {
        tx_ref: 'order-1002',
        first_name: 'Tamanda',
        last_name: 'Phiri',
        email: 'tamanda@shop.mw',
      });
      made.mwale = await session(shop, { tx_ref: 'order-2001', first_name: 'Grace', last_name: 'Mwale', email: null });
      const direct = chargeBody({
        mobile: TEST_NUMBERS.tnmSuccess,
        mobile_money_operator_ref_id: TNM_REF,
        charge_id: 'pay-77-kondwani',
        first_name: 'Kondwani',
        last_name: 'BANDA',
        email: 'kondwani@example.org',
      });
      assert.equal((await initializeCharge(gw, shop.test_secret_key, direct)).status, 201);
      // Left to the sandbox's own completion, which gives the charge an operator reference; a
      // verify with transaction_status=success would settle it without one.
      await verify(gw, shop.test_secret_key, 'pay-77-kondwani');
      made.directBanda = (
        await eventually('the direct charge to succeed', () =>
          db()
            .selectFrom('charges')
            .select('id')
            .where('merchant_id', '=', shop.id)
            .where('charge_id', '=', 'pay-77-kondwani')
            .where('status', '=', 'success')
            .executeTakeFirst(),
        )
      ).id;
      // Another merchant's payment like the shop's in every way: same tx_ref prefix, name, number.
      made.otherBanda = await paidSession(other, {
        tx_ref: 'order-1003',
        first_name: 'Chikondi',
        last_name: 'Banda',
        email: 'chikondi.banda@example.com',
      });
      // The shop's own, but in live mode.
      const template = await db()
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', made.unpaidPhiri)
        .executeTakeFirstOrThrow();
      made.liveBanda = ids.checkoutToken(Date.now());
      await db()
        .insertInto('checkout_sessions')
        .values({
          ...template,
          id: made.liveBanda,
          mode: 'live',
          tx_ref: 'order-1004',
          reference: ids.reference(),
          last_name: 'Banda',
        })
        .execute();
      browser = await signedInBrowser(gw, 'viewer', shop.id);
    });
    after(() => gw.close());

    test('a tx_ref by its beginning', async () => {
      assert.deepEqual(await found('order-10'), sorted([made.paidBanda, made.unpaidPhiri]));
      assert.deepEqual(await found('ORDER-2'), [made.mwale]);
      assert.deepEqual(await found('order-1001'), [made.paidBanda]);
    });

    test('a customer by name, in any case; every word must be found', async () => {
      assert.deepEqual(await found('banda'), sorted([made.paidBanda, made.directBanda]));
      assert.deepEqual(await found('BaNdA'), sorted([made.paidBanda, made.directBanda]));
      assert.deepEqual(await found('Chikondi Banda'), [made.paidBanda]);
      assert.deepEqual(await found('mwale'), [made.mwale]);
      assert.deepEqual(await found('banda mwale'), [], 'no payment holds both');
    });

    test('an email by any part of it', async () => {
      assert.deepEqual(await found('chikondi.banda@'), [made.paidBanda]);
      assert.deepEqual(await found('EXAMPLE'), sorted([made.paidBanda, made.directBanda]));
      assert.deepEqual(await found('shop.mw'), [made.unpaidPhiri]);
      assert.deepEqual(await found('example.org'), [made.directBanda]);
    });

    test('a mobile number in any form, by its masked form as stored', async () => {
      for (const form of [
        '0899817565',
        '+265899817565',
        '265899817565',
        '265 89 981 7565',
        '0899-817-565',
        '899817565',
      ])
        assert.deepEqual(await found(form), [made.directBanda], form);
      // A session is found by the number that paid it; the other merchant's, paid from the same number, is not.
      for (const form of ['0990000000', '+265 990 000 000', '265990000000'])
        assert.deepEqual(await found(form), [made.paidBanda], form);
      assert.deepEqual(await found('+265899xxxx65'), [made.directBanda], 'the number as the list shows it');
    });

    test("a charge id, the session's paying attempt's too", async () => {
      assert.deepEqual(await found('pay-77'), [made.directBanda]);
      const { charge_id } = await paidCharge(made.paidBanda);
      assert.deepEqual(await found(charge_id.slice(0, 12)), [made.paidBanda], charge_id);
    });

    test("the operator's reference and the Lipira reference", async () => {
      const { trans_id } = await paidCharge(made.paidBanda);
      assert.ok(trans_id);
      assert.deepEqual(await found(trans_id.slice(0, 13).toUpperCase()), [made.paidBanda]);
      const direct = await db()
        .selectFrom('charges')
        .select(['trans_id', 'ref_id'])
        .where('id', '=', made.directBanda as never)
        .executeTakeFirstOrThrow();
      assert.deepEqual(await found(direct.trans_id!.slice(-12)), [made.directBanda]);
      assert.deepEqual(await found(direct.ref_id), [made.directBanda]);
      const { reference } = await db()
        .selectFrom('checkout_sessions')
        .select('reference')
        .where('id', '=', made.mwale)
        .executeTakeFirstOrThrow();
      assert.deepEqual(await found(reference.slice(2)), [made.mwale]);
    });

    test('search combines with the filters', async () => {
      const page = await browser.get('/dashboard/payments?q=banda&channel=mobile_money&status=success');
      assert.deepEqual(sorted(shownIds(page.text)), sorted([made.paidBanda, made.directBanda]));
      assert.deepEqual(shownIds((await browser.get('/dashboard/payments?q=banda&status=pending')).text), []);
    });

    test('words too short to look for are said to be, and the list is shown unsearched', async () => {
      const page = await search('ab');
      assert.match(page.text, /The search &quot;ab&quot; has no word of 3 characters or more, so it was ignored\./);
      assert.equal(shownIds(page.text).length, 4);
    });

    test("another merchant's payments and the other mode's are never found", async () => {
      const everything = ['order', 'banda', 'chikondi', 'example.com', '0990000000', 'order-1003', 'order-1004'];
      for (const text of everything) {
        const shown = await found(text);
        assert.ok(!shown.includes(made.otherBanda), `${text}: not the other merchant's`);
        assert.ok(!shown.includes(made.liveBanda), `${text}: not live mode's`);
      }
      assert.deepEqual(await found('order-1003'), []);
      assert.deepEqual(await found('order-1004'), []);
      const theirs = await signedInBrowser(gw, 'viewer', other.id);
      assert.deepEqual(await found('banda', theirs), [made.otherBanda]);
      assert.deepEqual(await found('0990000000', theirs), [made.otherBanda]);
    });

    test('a search matching many payments reads the list in order and pages like the list, none of another merchant', async () => {
      const template = await db()
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', made.mwale)
        .executeTakeFirstOrThrow();
      const zebras = (merchantId: string, count: number, from: number) =>
        Array.from({ length: count }, (_, i) => ({
          ...template,
          id: ids.checkoutToken(from + i),
          merchant_id: merchantId,
          tx_ref: `zebra-${i}`,
          reference: ids.reference(),
          first_name: 'Zebra',
          created_at: from + i,
        }));
      const start = Date.now() - 3_600_000;
      const ours = zebras(shop.id, INDEX_MATCHES_READ + 60, start);
      // The other merchant's are the newest: a search that forgot whose payments it reads would show them first.
      const theirs = zebras(other.id, 60, start + 1_000_000);
      await db()
        .transaction()
        .execute(async (trx) => {
          for (let at = 0; at < ours.length; at += 500)
            await trx
              .insertInto('checkout_sessions')
              .values(ours.slice(at, at + 500))
              .execute();
          await trx.insertInto('checkout_sessions').values(theirs).execute();
        });
      const plan = await planSearch(db(), parsePaymentSearch('zebra').search!);
      if (kind === 'sqlite') {
        assert.equal(plan.sessions.through, 'rows', 'more matches than the index is read for');
        const few = await planSearch(db(), parsePaymentSearch('order-10').search!);
        assert.equal(few.sessions.through, 'index', 'and the tests above read through the index');
      }
      const newest = ours
        .map((row) => row.id)
        .reverse()
        .slice(0, 50);
      const first = await search('ZEBRA');
      assert.deepEqual(shownIds(first.text), newest, 'the newest 50, newest first');
      const older = /<a href="([^"]+)" rel="next">/.exec(first.text)?.[1]?.replace(/&amp;/g, '&');
      assert.ok(older);
      assert.deepEqual(
        shownIds((await browser.get(older)).text),
        ours
          .map((row) => row.id)
          .reverse()
          .slice(50, 100),
      );
      assert.deepEqual(shownIds((await search('zebra-7')).text).length, 50, 'zebra-7, -70…-79, -700…-799 and more');
    });
  });
}
