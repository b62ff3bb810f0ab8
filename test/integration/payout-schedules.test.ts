import { withoutCellLabels } from '../helpers/dashboard.ts';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { PaymentDeps } from '../../src/core/payment-deps.ts';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { payoutBankByUuid } from '../../src/payouts/banks.ts';
import { runDueSchedules, savePayoutSchedule } from '../../src/payouts/payout-schedules.ts';
import { claimRun, findSchedule } from '../../src/payouts/schedule-repository.ts';
import { AIRTEL_REF } from '../helpers/mobile-money.ts';
import { fakeClock } from '../helpers/clock.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { accountMinor, eventually, fundMainBalance, TEST_NUMBERS } from '../helpers/mobile-money.ts';

/** Monday 3 March 2031, 10:00 in Blantyre (UTC+2): far from today, so nothing passes for the system's time. */
const MONDAY_TEN = Date.UTC(2031, 2, 3, 8);
/** 08:00 in Blantyre on a day of March 2031. */
const eight = (day: number) => Date.UTC(2031, 2, day, 6);
const NBM_UUID = '82310dd1-ec9b-4fe7-a32c-2f262ef08681';

/** The automatic payouts form for a new Airtel wallet, weekly on Wednesday, from MWK 1,000. */
const WALLET_SCHEDULE = {
  frequency: 'weekly',
  weekday: '3',
  minimum: '1,000',
  recipient: 'new',
  kind: 'wallet',
  mobile: TEST_NUMBERS.airtelSuccess,
  bank_uuid: '',
  bank_account_number: '',
  bank_account_name: 'Grace Banda',
};

/** The hidden fields of the confirmation page's form, as the browser would post them back. */
function confirmationFields(html: string): Record<string, string> {
  const form = /<form class="inline" method="post" action="\/dashboard\/payouts\/schedule">([\s\S]*?)<\/form>/.exec(
    html,
  )?.[1];
  assert.ok(form, 'the confirmation page has the save form');
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    if (name !== 'csrf') fields[name!] = value!.replace(/&amp;/g, '&');
  return fields;
}

for (const kind of DATABASE_KINDS) {
  describe(`automatic payouts on ${kind}`, () => {
    const clock = fakeClock(MONDAY_TEN);
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '30s', WORKER_INTERVAL: '50ms' }, clock);
    /** A second process on the same database, with its own connections and the same clock. */
    let other: { database: Database; deps: PaymentDeps };
    const db = () => ctx.gw.gateway.database.db;

    before(async () => {
      const database = await openMigratedDatabase(ctx.gw.database.url);
      other = { database, deps: paymentDeps(loadConfig({ DATABASE_URL: ctx.gw.database.url }), database, clock) };
    });
    after(() => other.database.close());

    const payoutsOf = (merchantId: string) =>
      db()
        .selectFrom('charges')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('kind', '=', 'payout')
        .execute();
    const auditOf = (merchantId: string, action: string) =>
      db()
        .selectFrom('audit_log')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('action', '=', action)
        .execute();
    /** A merchant with MWK 4,850.00 in its test main balance (5,000 collected less the 3 % fee). */
    const fundedMerchant = async (): Promise<MerchantCredentials> => {
      clock.set(MONDAY_TEN);
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      return merchant;
    };
    /** A schedule set through the service, as the dashboard's final step sets it. */
    const schedule = (merchant: MerchantCredentials, minimumKwacha: number, weekday: number | null = 3) =>
      savePayoutSchedule(
        other.deps,
        { merchantId: merchant.id, mode: 'test' },
        {
          cadence: weekday === null ? { frequency: 'daily', weekday: null } : { frequency: 'weekly', weekday },
          minimumMinor: minimumKwacha * 100,
          recipient: { bank_uuid: NBM_UUID, bank_account_name: 'Grace Banda', bank_account_number: '1001000010' },
        },
        { alongside: async () => undefined },
      );

    test('the owner sets up a weekly payout on the payouts page: confirmed, saved with its audit entry, shown with the next date', async () => {
      const merchant = await fundedMerchant();
      const owner = await signedInBrowser(ctx.gw, 'owner', merchant.id);
      const empty = await owner.get('/dashboard/payouts');
      assert.match(empty.text, /No automatic payouts in test mode\./);
      assert.match(empty.text, /href="\/dashboard\/payouts\/schedule">Set up automatic payouts</);

      const form = await owner.get('/dashboard/payouts/schedule');
      assert.equal(form.status, 200);
      assert.match(form.text, /Runs are made at 08:00 \(Africa\/Blantyre\)/);
      const refused = await owner.post('/dashboard/payouts/schedule/confirm', {
        ...WALLET_SCHEDULE,
        minimum: '0',
        mobile: '0881',
      });
      assert.equal(refused.status, 422);
      assert.match(refused.text, /id="minimum-error">Enter the minimum balance in whole kwacha/);
      assert.match(refused.text, /id="mobile-error">Enter an Airtel Money or TNM Mpamba number/);

      const confirm = await owner.post('/dashboard/payouts/schedule/confirm', WALLET_SCHEDULE);
      assert.equal(confirm.status, 200, confirm.text);
      assert.match(confirm.text, /<dt>When<\/dt><dd>Every Wednesday at 08:00 \(Africa\/Blantyre\)<\/dd>/);
      assert.match(confirm.text, /<dt>To<\/dt><dd>Grace Banda, 0990xxxx00 \(Airtel Money\)<\/dd>/);
      assert.match(confirm.text, /<dt>Minimum<\/dt><dd>MWK 1,000\.00<\/dd>/);
      assert.match(confirm.text, /<dt>First run<\/dt><dd><strong>5 March 2031 at 08:00 CAT<\/strong><\/dd>/);
      assert.match(confirm.text, /Start automatic payouts/);
      assert.equal(await findSchedule(db(), { merchantId: merchant.id, mode: 'test' }), undefined, 'nothing saved yet');

      const saved = await owner.post('/dashboard/payouts/schedule', confirmationFields(confirm.text));
      assert.equal(saved.status, 303, saved.text);
      assert.equal(saved.location, '/dashboard/payouts?done=schedule_saved');
      const row = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
      assert.ok(row);
      assert.equal(row.next_run_at, eight(5));
      assert.deepEqual(
        [row.frequency, row.weekday, row.minimum_minor, row.bank_uuid, row.account_number, row.account_name],
        ['weekly', 3, 100_000, AIRTEL_REF, TEST_NUMBERS.airtelSuccess, 'Grace Banda'],
      );
      const [entry] = await auditOf(merchant.id, 'payout_schedule.save');
      assert.equal(entry?.subject, row.id);
      assert.match(entry?.detail ?? '', /"account_ending":"0000"/);
      assert.doesNotMatch(entry?.detail ?? '', new RegExp(TEST_NUMBERS.airtelSuccess), 'no whole number in the log');

      const shown = await owner.get('/dashboard/payouts?done=schedule_saved');
      assert.match(shown.text, /Automatic payouts are saved/);
      assert.match(shown.text, /<dt>Next payout<\/dt><dd><strong>5 March 2031 at 08:00 CAT<\/strong><\/dd>/);
      assert.match(shown.text, /Every Wednesday at 08:00 \(Africa\/Blantyre\)/);
      assert.match(shown.text, /href="\/dashboard\/payouts\/schedule">Change</);
      assert.match(shown.text, /href="\/dashboard\/payouts\/schedule\/stop">Stop automatic payouts</);

      await owner.post('/dashboard/mode', { mode: 'live', back: '/dashboard/payouts' });
      const live = await owner.get('/dashboard/payouts');
      assert.match(live.text, /No automatic payouts in live mode\./, 'a schedule is per mode');

      const viewer = await signedInBrowser(ctx.gw, 'viewer', merchant.id);
      const seen = await viewer.get('/dashboard/payouts');
      assert.match(seen.text, /5 March 2031 at 08:00 CAT/, 'a viewer sees it');
      assert.doesNotMatch(seen.text, /payouts\/schedule/, 'but is offered no change');
      assert.equal((await viewer.get('/dashboard/payouts/schedule')).status, 403);
      assert.equal((await viewer.post('/dashboard/payouts/schedule', WALLET_SCHEDULE)).status, 403);
      const developer = await signedInBrowser(ctx.gw, 'developer', merchant.id);
      assert.equal((await developer.get('/dashboard/payouts/schedule/stop')).status, 403);
    });

    test('a recipient paid before through the payouts form can be chosen, and a change moves the next date', async () => {
      const merchant = await fundedMerchant();
      const owner = await signedInBrowser(ctx.gw, 'owner', merchant.id);
      const paid = await owner.post('/dashboard/payouts/new/confirm', {
        kind: 'bank',
        mobile: '',
        bank_uuid: NBM_UUID,
        bank_account_number: '1001000077',
        bank_account_name: 'Mango Traders',
        amount: '100',
      });
      const fields: Record<string, string> = {};
      for (const [, name, value] of paid.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
        if (name !== 'csrf') fields[name!] = value!;
      assert.equal((await owner.post('/dashboard/payouts', fields)).status, 303);
      const [payout] = await payoutsOf(merchant.id);
      assert.ok(payout);

      const form = await owner.get('/dashboard/payouts/schedule');
      assert.match(
        form.text,
        new RegExp(
          `<input type="radio" name="recipient" value="${payout.id}"> Mango Traders, National Bank of Malawi, account ending 0077`,
        ),
      );
      const chosen = { ...WALLET_SCHEDULE, recipient: payout.id, mobile: '', bank_account_name: '' };
      const saved = await owner.post('/dashboard/payouts/schedule', chosen);
      assert.equal(saved.status, 303, saved.text);
      const first = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
      assert.equal(first?.account_number, '1001000077');
      assert.equal(first?.bank_name, payoutBankByUuid(NBM_UUID)?.name);

      clock.set(Date.UTC(2031, 2, 5, 7)); // Wednesday 09:00: this week's run time has passed
      const later = await signedInBrowser(ctx.gw, 'owner', merchant.id); // two days on, the first session is over
      const changed = await later.post('/dashboard/payouts/schedule', {
        ...chosen,
        recipient: 'current',
        frequency: 'daily',
      });
      assert.equal(changed.status, 303, changed.text);
      const after = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
      assert.equal(after?.id, first?.id, 'the same schedule, changed');
      assert.equal(after?.next_run_at, eight(6), 'daily now: tomorrow at 08:00');
      assert.equal(after?.version, 2);
      const entries = await auditOf(merchant.id, 'payout_schedule.save');
      assert.equal(entries.length, 2);
      assert.match(entries.at(-1)?.detail ?? '', /"frequency":\{"from":"weekly","to":"daily"\}/);
      const forged = await later.post('/dashboard/payouts/schedule', {
        ...chosen,
        recipient: 'chg_not_a_payout_of_ours',
      });
      assert.equal(forged.status, 422);
      assert.match(forged.text, /Choose who the payouts go to/);
    });

    test('a run pays everything payable once when due, with two processes and the worker at it; an ordinary payout: reserve, webhook, audit', async () => {
      const merchant = await fundedMerchant();
      const made = await schedule(merchant, 1000);
      clock.set(eight(5) - 1);
      assert.deepEqual(await runDueSchedules(other.deps, clock.now()), [], 'not due a moment before 08:00');

      clock.set(eight(5) + 60_000);
      const [mine] = await Promise.all([
        runDueSchedules(other.deps, clock.now()),
        runDueSchedules(other.deps, clock.now()),
      ]);
      const payouts = await eventually('the run to pay', async () => {
        const rows = await payoutsOf(merchant.id);
        return rows.length > 0 ? rows : null;
      });
      assert.ok(mine !== undefined);
      assert.equal(payouts.length, 1, 'one payout, whoever ran it');
      const [payout] = payouts;
      assert.equal(payout?.charge_id, `auto_${made.id}_20310305`);
      // 4,850.00 in main: 4,801 kwacha and its 1 % fee (48.01) fit, 4,802 would not.
      assert.equal(payout?.amount_minor, 480_100);
      assert.equal(payout?.fee_minor, 4_801);
      assert.equal(payout?.type, 'API Payout');
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'main'), 99);
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'payout_reserve'), 484_901);
      const [entry] = await auditOf(merchant.id, 'payout.automatic');
      assert.equal(entry?.subject, payout?.id);
      assert.equal(entry?.user_id, null);
      const ran = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
      assert.equal(ran?.next_run_at, eight(12), 'next Wednesday');
      assert.equal(ran?.last_payout_ref, payout?.id);
      assert.equal(ran?.last_result, 'Paid out MWK 4,801.00 (fee MWK 48.01).');
      assert.deepEqual(await runDueSchedules(other.deps, clock.now()), [], 'nothing due any more');

      clock.advance(60_000);
      const done = await eventually('the payout to end', async () => {
        const [row] = await payoutsOf(merchant.id);
        return row?.status === 'success' ? row : null;
      });
      const events = await db().selectFrom('events').selectAll().where('subject_id', '=', done.id).execute();
      assert.deepEqual(
        events.map((event) => event.type),
        ['api.payout'],
        "the merchant's webhook hears of it as of any payout",
      );
      assert.equal((await payoutsOf(merchant.id)).length, 1);

      const owner = await signedInBrowser(ctx.gw, 'owner', merchant.id);
      const page = await owner.get('/dashboard/payouts');
      assert.match(page.text, /Paid out MWK 4,801\.00 \(fee MWK 48\.01\)\./);
      assert.match(page.text, /<dt>Next payout<\/dt><dd><strong>12 March 2031 at 08:00 CAT<\/strong>/);
      const log = await owner.get('/dashboard/audit');
      assert.match(withoutCellLabels(log.text), /automatic payouts<\/span><\/td><td>Sent an automatic payout/);
    });

    test('a run claimed by a process that died is run once its claim lapses, and only then', async () => {
      const merchant = await fundedMerchant();
      const made = await schedule(merchant, 1000, null);
      clock.set(eight(4));
      assert.ok(
        await claimRun(db(), made, clock.now() + 5 * 60_000, clock.now()),
        'a process claims the run, then dies',
      );
      assert.deepEqual(await runDueSchedules(other.deps, clock.now()), []);
      assert.deepEqual(await payoutsOf(merchant.id), []);
      clock.advance(5 * 60_000);
      await eventually('the lapsed run to be made', async () => (await payoutsOf(merchant.id)).length === 1);
      await runDueSchedules(other.deps, clock.now());
      assert.equal((await payoutsOf(merchant.id)).length, 1);
      assert.equal((await findSchedule(db(), { merchantId: merchant.id, mode: 'test' }))?.next_run_at, eight(5));
    });

    test('below its minimum a run pays nothing, says why, and waits for the next', async () => {
      const merchant = await fundedMerchant();
      await schedule(merchant, 10_000);
      clock.set(eight(5));
      await eventually('the run to be made by the worker', async () => {
        const row = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
        return row?.last_run_at === eight(5) ? row : null;
      });
      const row = await findSchedule(db(), { merchantId: merchant.id, mode: 'test' });
      assert.equal(
        row?.last_result,
        'Nothing paid out: the main balance, MWK 4,850.00, was below the minimum of MWK 10,000.00.',
      );
      assert.equal(row?.last_payout_ref, null);
      assert.equal(row?.next_run_at, eight(12));
      assert.deepEqual(await payoutsOf(merchant.id), []);
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'main'), 485_000);
      assert.deepEqual(await auditOf(merchant.id, 'payout.automatic'), []);
    });

    test('the owner stops automatic payouts after a confirmation: no run is made after', async () => {
      const merchant = await fundedMerchant();
      const made = await schedule(merchant, 1000);
      const owner = await signedInBrowser(ctx.gw, 'owner', merchant.id);
      const confirm = await owner.get('/dashboard/payouts/schedule/stop');
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, /<h1>Stop automatic payouts\?<\/h1>/);
      assert.match(confirm.text, /<dt>Next payout<\/dt><dd>5 March 2031 at 08:00 CAT<\/dd>/);
      assert.ok(await findSchedule(db(), { merchantId: merchant.id, mode: 'test' }), 'asking changes nothing');

      const stopped = await owner.post('/dashboard/payouts/schedule/stop', {});
      assert.equal(stopped.status, 303);
      assert.equal(stopped.location, '/dashboard/payouts?done=schedule_stopped');
      assert.equal(await findSchedule(db(), { merchantId: merchant.id, mode: 'test' }), undefined);
      const [entry] = await auditOf(merchant.id, 'payout_schedule.stop');
      assert.equal(entry?.subject, made.id);
      const page = await owner.get('/dashboard/payouts?done=schedule_stopped');
      assert.match(page.text, /Automatic payouts are stopped/);
      assert.match(page.text, /No automatic payouts in test mode\./);

      clock.set(eight(5) + 60_000);
      await runDueSchedules(other.deps, clock.now());
      assert.deepEqual(await payoutsOf(merchant.id), []);
      const later = await signedInBrowser(ctx.gw, 'owner', merchant.id);
      assert.equal(
        (await later.get('/dashboard/payouts/schedule/stop')).location,
        '/dashboard/payouts',
        'nothing to stop',
      );
    });
  });
}
