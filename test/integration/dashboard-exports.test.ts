import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fakeClock } from '../helpers/clock.ts';
import { csvRecords } from '../helpers/csv.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  chargeBody,
  initializeCharge,
  initializePayout,
  payoutBody,
  settledByWorker,
  TEST_NUMBERS,
  TNM_REF,
  verify,
} from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { settleCollections } from '../../src/ledger/ledger-service.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

const TIME_ZONE = 'Africa/Blantyre';
const HOUR = 3_600_000;
/** Amount columns: a plain decimal, no thousands separator, or empty. */
const PLAIN_DECIMAL = /^(\d+\.\d{2})?$/;

/**
 * The dashboard's CSV files as a spreadsheet opens them, parsed: the payments export with what
 * reconciling needs, and a month's statement whose closing is its opening plus its movements. The
 * gateway runs on a clock of its own, so that times and months are known.
 */
for (const kind of DATABASE_KINDS) {
  describe(`dashboard CSV exports (${kind})`, () => {
    // 15 November 2026, 11:30:05 in Blantyre (UTC+2).
    const clock = fakeClock(Date.UTC(2026, 10, 15, 9, 30, 5));
    const ctx = useTestGateway(
      kind,
      { SANDBOX_MOBILE_DELAY: '0', WORKER_INTERVAL: '50ms', TIMEZONE: TIME_ZONE },
      clock,
    );
    const db = () => ctx.gw.gateway.database.db;

    async function directCharge(merchant: MerchantCredentials, overrides: Record<string, unknown>, ending: string) {
      const body = chargeBody(overrides);
      assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
      await verify(ctx.gw, merchant.test_secret_key, String(body.charge_id), ending);
      return settledByWorker(ctx.gw, merchant.id, String(body.charge_id));
    }

    test('the payments CSV has what reconciling needs, times in TIMEZONE, plain decimals, formulas guarded', async () => {
      const merchant = ctx.merchant;
      const { txRef } = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess, {
        amount: 12_345,
        first_name: '=SUM(A1)',
        last_name: 'Banda, "Jr"',
        email: 'chikondi@example.com',
        customization: { title: 'Order 7', description: '+1 bag, "large"\nand a hat' },
      });
      const refund = await call(ctx.gw.url, '/refunds', {
        key: merchant.test_secret_key,
        body: { tx_ref: txRef, amount: 1000 },
      });
      assert.equal(refund.status, 201, refund.text);
      clock.advance(HOUR);
      await settleCollections(db(), clock.now());
      clock.advance(HOUR);
      const afterSettlement = await directCharge(
        merchant,
        {
          mobile: TEST_NUMBERS.tnmSuccess,
          mobile_money_operator_ref_id: TNM_REF,
          amount: 2500,
          first_name: 'Kondwani',
        },
        'success',
      );
      const failed = await directCharge(merchant, { mobile: TEST_NUMBERS.airtelFailed, amount: 700 }, 'failed');
      const session = await db()
        .selectFrom('checkout_sessions as s')
        .innerJoin('charges as c', 'c.id', 's.paid_charge_id')
        .select(['s.id', 's.reference', 'c.charge_id', 'c.trans_id'])
        .where('s.tx_ref', '=', txRef)
        .executeTakeFirstOrThrow();

      const browser = await signedInBrowser(ctx.gw, 'viewer', merchant.id);
      const answer = await browser.get('/dashboard/payments.csv');
      assert.equal(answer.status, 200);
      const { header, records } = csvRecords(answer.text);
      assert.deepEqual(header, [
        'id',
        'type',
        'created_at',
        'completed_at',
        'time_zone',
        'merchant_reference',
        'reference',
        'charge_id',
        'status',
        'channel',
        'method',
        'customer_name',
        'email',
        'mobile',
        'description',
        'currency',
        'amount',
        'fee',
        'net',
        'refunded',
        'operator_reference',
        'settled',
      ]);
      assert.equal(records.length, 3);
      const byId = new Map(records.map((record) => [record.id, record]));
      assert.deepEqual(byId.get(session.id), {
        id: session.id,
        type: 'checkout_session',
        created_at: '2026-11-15 11:30:05',
        completed_at: '2026-11-15 11:30:05',
        time_zone: TIME_ZONE,
        merchant_reference: txRef,
        reference: session.reference,
        charge_id: session.charge_id,
        status: 'success',
        channel: 'mobile_money',
        method: 'Airtel Money',
        // Guarded: a spreadsheet shows the apostrophe's text rather than running a formula.
        customer_name: `'=SUM(A1) Banda, "Jr"`,
        email: 'chikondi@example.com',
        mobile: "'+265990xxxx00",
        description: `'+1 bag, "large"\nand a hat`,
        currency: 'MWK',
        amount: '12345.00',
        fee: '370.35',
        net: '11974.65',
        refunded: '1000.00',
        operator_reference: session.trans_id,
        settled: 'yes',
      });
      const direct = byId.get(afterSettlement.id)!;
      assert.equal(direct.created_at, '2026-11-15 13:30:05', 'two hours later, in Blantyre');
      assert.equal(direct.method, 'TNM Mpamba');
      assert.equal(direct.customer_name, 'Kondwani Banda');
      assert.equal(direct.net, '2425.00');
      assert.equal(direct.refunded, '0.00');
      assert.equal(direct.settled, 'no', 'paid after the last settlement');
      // Empty when the verify settled it before the sandbox did (no operator reference then).
      assert.equal(direct.operator_reference, afterSettlement.trans_id ?? '');
      const unpaid = byId.get(failed.id)!;
      assert.deepEqual(
        [unpaid.status, unpaid.fee, unpaid.net, unpaid.refunded, unpaid.settled, unpaid.operator_reference],
        ['failed', '', '', '', '', ''],
      );
      for (const record of records)
        for (const column of ['amount', 'fee', 'net', 'refunded'])
          assert.match(record[column]!, PLAIN_DECIMAL, `${column} ${record[column]}`);
      assert.doesNotMatch(answer.text, /12,345/, 'no thousands separator anywhere');
    });

    test("a month's statement: each balance's opening plus the month's movements is its closing, and the next month's opening", async () => {
      const merchant = await ctx.gw.newMerchant('Monthly Shop');
      clock.set(Date.UTC(2026, 11, 3, 8, 0));
      await directCharge(merchant, { amount: 5000 }, 'success');
      clock.set(Date.UTC(2026, 11, 10, 8, 0));
      await settleCollections(db(), clock.now());
      clock.set(Date.UTC(2026, 11, 12, 8, 0));
      const payout = payoutBody({ amount: 1000 });
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, payout)).status, 201);
      await settledByWorker(ctx.gw, merchant.id, String(payout.charge_id));
      // 31 December 22:30 UTC is 1 January 00:30 in Blantyre: January's.
      clock.set(Date.UTC(2026, 11, 31, 22, 30));
      await directCharge(merchant, { amount: 2000 }, 'success');
      clock.set(Date.UTC(2027, 0, 5, 8, 0));
      await settleCollections(db(), clock.now());

      const browser = await signedInBrowser(ctx.gw, 'viewer', merchant.id);
      const statement = async (month: string) => {
        const answer = await browser.get(`/dashboard/balance/statement.csv?month=${month}`);
        assert.equal(answer.status, 200, answer.text.slice(0, 200));
        assert.match(
          answer.headers.get('content-disposition') ?? '',
          new RegExp(`^attachment; filename="statement-test-${month}\\.csv"$`),
        );
        return csvRecords(answer.text).records;
      };
      /** Each balance's opening, movements and closing, checked to add up. */
      const balances = (records: Array<Record<string, string>>) => {
        const found = new Map<string, { opening: number; closing: number; movements: Array<Record<string, string>> }>();
        for (const record of records) {
          const key = `${record.currency} ${record.balance}`;
          const after = Number(record.balance_after);
          if (record.row === 'opening') found.set(key, { opening: after, closing: NaN, movements: [] });
          const balance = found.get(key)!;
          if (record.row === 'movement') {
            const before =
              balance.movements.length === 0 ? balance.opening : Number(balance.movements.at(-1)!.balance_after);
            assert.equal(
              (before + Number(record.amount_in || 0) - Number(record.amount_out || 0)).toFixed(2),
              after.toFixed(2),
              `${key}: entry ${record.entry_id}'s balance after`,
            );
            balance.movements.push(record);
          }
          if (record.row === 'closing') {
            const moved = balance.movements.reduce(
              (sum, movement) => sum + Number(movement.amount_in || 0) - Number(movement.amount_out || 0),
              0,
            );
            assert.equal(
              (balance.opening + moved).toFixed(2),
              after.toFixed(2),
              `${key}: opening + movements = closing`,
            );
            balance.closing = after;
          }
          for (const column of ['amount_in', 'amount_out', 'balance_after'])
            assert.match(record[column]!, PLAIN_DECIMAL, `${column} ${record[column]}`);
          assert.equal(record.time_zone, TIME_ZONE);
        }
        return found;
      };

      const november = balances(await statement('2026-11'));
      assert.deepEqual(
        [...november].map(([key, b]) => [key, b.opening, b.movements.length, b.closing]),
        [
          ['MWK collection', 0, 0, 0],
          ['MWK main', 0, 0, 0],
        ],
        'no money moved before December: both balances, at zero',
      );
      const decemberRecords = await statement('2026-12');
      const december = balances(decemberRecords);
      assert.deepEqual(
        december.get('MWK collection')!.movements.map((m) => [m.kind, m.amount_in, m.amount_out, m.time]),
        [
          ['collection', '4850.00', '', '2026-12-03 10:00:00'],
          ['settlement', '', '4850.00', '2026-12-10 10:00:00'],
        ],
      );
      assert.deepEqual(
        december.get('MWK main')!.movements.map((m) => [m.kind, m.amount_in, m.amount_out]),
        [
          ['settlement', '4850.00', ''],
          ['payout_reserve', '', '1010.00'],
        ],
      );
      assert.equal(december.get('MWK main')!.closing, 3840);
      assert.equal(decemberRecords[0]!.time, '2026-12-01 00:00:00', 'the opening is at the month’s start');
      assert.equal(decemberRecords.at(-1)!.time, '2027-01-01 00:00:00');

      const january = balances(await statement('2027-01'));
      for (const key of ['MWK collection', 'MWK main'])
        assert.equal(january.get(key)!.opening, december.get(key)!.closing, `${key}: January opens as December closed`);
      assert.deepEqual(
        january.get('MWK collection')!.movements.map((m) => [m.kind, m.amount_in, m.time]),
        [
          ['collection', '1940.00', '2027-01-01 00:30:00'],
          ['settlement', '', '2027-01-05 10:00:00'],
        ],
        "the payment at 22:30 UTC on 31 December is January's in Blantyre",
      );
      assert.equal(january.get('MWK main')!.closing * 100, await accountMinor(ctx.gw, merchant.id, 'main'));
      assert.equal(january.get('MWK collection')!.closing * 100, await accountMinor(ctx.gw, merchant.id, 'collection'));

      const bad = await browser.get('/dashboard/balance/statement.csv?month=2026-13');
      assert.equal(bad.status, 303);
      assert.equal(bad.location, '/dashboard/balance?month=2026-13');
      const page = await browser.get(bad.location!);
      assert.match(page.text, /&quot;2026-13&quot; is not a month like 2026-11/);
      assert.match(
        (await browser.get('/dashboard/balance')).text,
        /<input type="month" id="month" name="month" value="2027-01" required>/,
        "the form offers the clock's month",
      );
    });
  });
}
