import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  chargeRows,
  fundMainBalance,
  initializePayout,
  payoutBody,
  settledByWorker,
} from '../helpers/mobile-money.ts';
import { csvCell } from '../../src/dashboard/csv.ts';
import { parseCsv } from '../helpers/csv.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

const csvRows = parseCsv;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard balance (${kind})`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });
    const db = () => ctx.gw.gateway.database.db;

    const signedIn = (merchant: MerchantCredentials) => signedInBrowser(ctx.gw, 'viewer', merchant.id);

    test('the statement lists the payment credit, the settlement, the payout debit and a failed payout given back; the CSV holds the same entries', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      const paid = payoutBody({ amount: 1000 });
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, paid)).status, 201);
      const failed = payoutBody({ amount: 200, transaction_status: 'failed' });
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, failed)).status, 201);
      await settledByWorker(ctx.gw, merchant.id, String(failed.charge_id));
      const [payment] = await db()
        .selectFrom('charges')
        .select(['id'])
        .where('merchant_id', '=', merchant.id)
        .where('kind', '=', 'payment')
        .execute();
      const [payout] = await chargeRows(ctx.gw, merchant.id, String(paid.charge_id));
      const [failedPayout] = await chargeRows(ctx.gw, merchant.id, String(failed.charge_id));

      const other = await ctx.gw.newMerchant('Other Shop');
      await fundMainBalance(ctx.gw, other, 3000);

      const browser = await signedIn(merchant);
      const page = await browser.get('/dashboard/balance');
      assert.equal(page.status, 200);
      // 4,850.00 after the 3 % fee, less 1,010.00 paid out (1 % fee); the failed payout came back.
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'main'), 384_000);
      assert.match(page.text, /<h2>Main balance<\/h2><p class="figure">MWK 3,840\.00<\/p>/);
      assert.match(page.text, /<h2>Collection balance<\/h2><p class="figure">MWK 0\.00<\/p>/);
      assert.match(
        page.text,
        new RegExp(`<a href="/dashboard/payments/${payment!.id}">Payment [^<]+ received, net of its fee</a>`),
      );
      assert.match(page.text, /MWK 4,850\.00/);
      assert.match(
        page.text,
        new RegExp(`<a href="/dashboard/payouts/${payout!.id}">Payout ${paid.charge_id}: amount and fee</a>`),
      );
      assert.match(page.text, /MWK 1,010\.00/);
      assert.match(
        page.text,
        new RegExp(
          `<a href="/dashboard/payouts/${failedPayout!.id}">Payout ${failed.charge_id} failed: amount and fee returned</a>`,
        ),
      );
      assert.match(page.text, /Settled into main from the collection balance/);
      assert.match(page.text, /Settled from the collection balance to main/);
      assert.doesNotMatch(page.text, /MWK 2,910\.00/, "the other merchant's payment is not here");

      const csv = await browser.get('/dashboard/balance.csv');
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', /^attachment; filename="statement-test\.csv"$/);
      const [header, ...rows] = csvRows(csv.text);
      assert.deepEqual(header, [
        'entry_id',
        'time_utc',
        'kind',
        'description',
        'link',
        'balance',
        'currency',
        'amount_in',
        'amount_out',
      ]);
      const shown = [...page.text.matchAll(/<tr><td[ >]/g)].length;
      assert.equal(rows.length, shown, 'as many entries as the page shows');
      // collection credit; settlement out of collection and into main; two payout reservations; one release.
      assert.equal(rows.length, 6);
      assert.deepEqual(rows.map((row) => row[2]).sort(), [
        'collection',
        'payout_release',
        'payout_reserve',
        'payout_reserve',
        'settlement',
        'settlement',
      ]);
      assert.ok(
        rows.some((row) => row[4] === `/dashboard/payouts/${payout!.id}` && row[8] === '1010.00' && row[5] === 'main'),
      );
      assert.ok(
        rows.some(
          (row) => row[4] === `/dashboard/payments/${payment!.id}` && row[7] === '4850.00' && row[5] === 'collection',
        ),
      );
      const main = rows
        .filter((row) => row[5] === 'main')
        .reduce((sum, row) => sum + Number(row[7] || 0) - Number(row[8] || 0), 0);
      assert.equal(main.toFixed(2), '3840.00', 'the main entries add up to the main balance');
      for (const row of rows) assert.match(row[1]!, /^\d{4}-\d\d-\d\dT/);
    });

    test('the date range filters the page and the CSV; the live statement is empty', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const browser = await signedIn(merchant);
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Blantyre' }).format(Date.now());
      const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Blantyre' }).format(
        Date.now() + 86_400_000,
      );
      assert.equal(
        csvRows((await browser.get(`/dashboard/balance.csv?from=${today}&to=${today}`)).text).length,
        4,
        'today: header and three entries',
      );
      const future = await browser.get(`/dashboard/balance.csv?from=${tomorrow}`);
      assert.equal(csvRows(future.text).length, 1, 'from tomorrow: only the header');
      assert.match(
        (await browser.get(`/dashboard/balance?from=${tomorrow}`)).text,
        /No money has moved in test mode in these dates yet/,
      );
      const bad = await browser.get('/dashboard/balance?from=2026-02-31');
      assert.equal(bad.status, 200);
      assert.match(bad.text, /the date filter was ignored/);
      const reversed = await browser.get(`/dashboard/balance?from=${tomorrow}&to=${today}`);
      assert.match(
        reversed.text,
        new RegExp(
          `The from date ${tomorrow} is after the to date ${today}, so no entry could match: the date filter was ignored\\.`,
        ),
      );
      assert.doesNotMatch(reversed.text, /No money has moved/, "today's entries are shown, not an empty range");
      assert.equal((await browser.post('/dashboard/mode', { mode: 'live', back: '/dashboard/balance' })).status, 303);
      assert.match((await browser.get('/dashboard/balance')).text, /No money has moved in live mode yet/);
      assert.equal(csvRows((await browser.get('/dashboard/balance.csv')).text).length, 1);
    });

    test('the statement pages by entry, newest first', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 100_000);
      for (let i = 0; i < 50; i += 1)
        assert.equal(
          (await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 10 }))).status,
          201,
        );
      const browser = await signedIn(merchant);
      const first = await browser.get('/dashboard/balance');
      assert.equal([...first.text.matchAll(/<tr><td[ >]/g)].length, 50);
      const next = /href="(\/dashboard\/balance\?before=\d+)">Older entries/.exec(first.text)?.[1];
      assert.ok(next);
      const second = await browser.get(next);
      assert.equal(
        [...second.text.matchAll(/<tr><td[ >]/g)].length,
        3,
        'the payment credit and the settlement, out and in',
      );
      assert.match(second.text, /received, net of its fee/);
    });

    test('CSV cells cannot become spreadsheet formulas; quotes, commas and line breaks are quoted', () => {
      assert.equal(csvCell('=HYPERLINK("http://evil")'), '"\'=HYPERLINK(""http://evil"")"');
      for (const lead of ['+', '-', '@', '\t']) assert.equal(csvCell(`${lead}1`), `'${lead}1`);
      assert.equal(csvCell('\r1'), `"'\r1"`);
      assert.equal(csvCell('Payment x'), 'Payment x');
      assert.equal(csvCell('Banda, Chikondi'), '"Banda, Chikondi"');
      assert.equal(csvCell('line\nbreak'), '"line\nbreak"');
    });
  });
}
