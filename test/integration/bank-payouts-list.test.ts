import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { isPostgres } from '../../src/db/dialect.ts';
import { bankPayoutCountQuery, bankPayoutPageQuery } from '../../src/payouts/recipient-repository.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { BANK_PAYOUT_KEYS, bankPayoutBody, bankPayoutList, initializeBankPayout } from '../helpers/bank-payouts.ts';
import { fundMainBalance, initializePayout, payoutBody, sortedKeys } from '../helpers/mobile-money.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

const outbox = temporaryFolder('lipira-outbox-');
after(() => outbox.remove());

for (const kind of DATABASE_KINDS) {
  describe(`the bank payouts list on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h', WORKER_INTERVAL: '50ms', OUTBOX_DIR: outbox.dir });
    const db = () => ctx.gw.gateway.database.db;

    test('an empty list is one page with nothing on it', async () => {
      const merchant = await ctx.gw.newMerchant();
      const res = await bankPayoutList(ctx.gw, merchant.test_secret_key);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        status: 'success',
        message: 'Transactions retrieved successfully.',
        data: { current_page: 1, total_pages: 1, per_page: 20, next_page_url: null, data: [] },
      });
    });

    test('20 a page, newest first; next_page_url leads through every page to the last, where it is null', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000);
      const made: string[] = [];
      for (let i = 0; i < 45; i++) {
        const body = bankPayoutBody({ amount: 1 + (i % 3) });
        const res = await initializeBankPayout(ctx.gw, merchant.test_secret_key, body);
        assert.equal(res.status, 201, res.text);
        made.push(String(body.charge_id));
        // Apart by a millisecond or more, so that "newest first" has one answer.
        await sleep(2);
      }
      // Not listed: its mobile money payouts, another merchant's bank payouts, and its live ones (none).
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 5 }))).status, 201);
      const other = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, other, 100);
      assert.equal(
        (await initializeBankPayout(ctx.gw, other.test_secret_key, bankPayoutBody({ amount: 1 }))).status,
        201,
      );

      const newestFirst = [...made].reverse();
      const seen: string[] = [];
      let url: string | null = `${ctx.gw.url}/direct-charge/payouts?page=1`;
      for (const [index, size] of [20, 20, 5].entries()) {
        const res = await call(ctx.gw.url, new URL(url!).pathname + new URL(url!).search, {
          key: merchant.test_secret_key,
        });
        assert.equal(res.status, 200, res.text);
        const page = res.body.data;
        assert.deepEqual(Object.keys(page), ['current_page', 'total_pages', 'per_page', 'next_page_url', 'data']);
        assert.equal(page.current_page, index + 1);
        assert.equal(page.total_pages, 3);
        assert.equal(page.per_page, 20);
        assert.equal(page.data.length, size);
        for (const record of page.data) {
          assert.deepEqual(sortedKeys(record), BANK_PAYOUT_KEYS);
          assert.equal(record.status, 'pending');
          assert.equal(record.recipient_account_details.bank_name, 'National Bank of Malawi');
        }
        seen.push(...page.data.map((record: { charge_id: string }) => record.charge_id));
        url = page.next_page_url;
        assert.equal(url, index < 2 ? `${ctx.gw.url}/direct-charge/payouts?page=${index + 2}` : null);
      }
      assert.deepEqual(seen, newestFirst, 'every payout once, newest first');

      const beyond = await bankPayoutList(ctx.gw, merchant.test_secret_key, '?page=4');
      assert.deepEqual(beyond.body.data, {
        current_page: 4,
        total_pages: 3,
        per_page: 20,
        next_page_url: null,
        data: [],
      });
      const first = await bankPayoutList(ctx.gw, merchant.test_secret_key);
      assert.deepEqual(
        first.body,
        (await bankPayoutList(ctx.gw, merchant.test_secret_key, '?page=1')).body,
        'page 1 by default',
      );
      assert.deepEqual(
        (await bankPayoutList(ctx.gw, merchant.live_secret_key)).body.data.data,
        [],
        'live keys see live payouts only',
      );
      const others = await bankPayoutList(ctx.gw, other.test_secret_key);
      assert.equal(others.body.data.data.length, 1);
    });

    test('a page that is not a whole number from 1 is 400', async () => {
      for (const page of ['0', '-1', 'two', '1.5', '99999999']) {
        const res = await bankPayoutList(ctx.gw, ctx.merchant.test_secret_key, `?page=${page}`);
        assert.equal(res.status, 400, `${page}: ${res.text}`);
        assert.deepEqual(res.body, {
          status: 'failed',
          message: { page: ['The page format is invalid.'] },
          data: null,
        });
      }
    });

    test('the page walks its offset and the count their range in the list index alone, in its order: no sort, no table scan', async () => {
      const [pagePlan, countPlan] = await Promise.all([
        plan(bankPayoutPageQuery(db(), 'mer_x', 'test', 40).compile()),
        plan(bankPayoutCountQuery(db(), 'mer_x', 'test').compile()),
      ]);
      if (isPostgres(db())) {
        assert.match(pagePlan, /Index Only Scan Backward using payout_recipients_list on payout_recipients/, pagePlan);
        assert.match(countPlan, /Index Only Scan using payout_recipients_list on payout_recipients/, countPlan);
        for (const text of [pagePlan, countPlan]) assert.doesNotMatch(text, /Sort|Seq Scan on payout_recipients/, text);
      } else {
        assert.match(
          pagePlan,
          /SEARCH payout_recipients USING COVERING INDEX payout_recipients_list \(merchant_id=\? AND mode=\?\)/,
          pagePlan,
        );
        assert.match(
          countPlan,
          /SEARCH payout_recipients USING COVERING INDEX payout_recipients_list \(merchant_id=\? AND mode=\?\)/,
          countPlan,
        );
        for (const text of [pagePlan, countPlan]) assert.doesNotMatch(text, /TEMP B-TREE|SCAN payout_recipients/, text);
      }
    });

    /**
     * The plan each database makes for a compiled query, as text. PostgreSQL's planner would scan
     * a small table whole and sort it, whatever the indexes: it is told to avoid both where it can,
     * so that a plan still needing them shows no index fits.
     */
    async function plan(query: CompiledQuery): Promise<string> {
      if (!isPostgres(db())) {
        const rows = await db().executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
        );
        return rows.rows.map((row) => row.detail).join('\n');
      }
      return db()
        .transaction()
        .execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          await sql`set local enable_sort = off`.execute(trx);
          const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
          );
          return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
        });
    }
  });
}
