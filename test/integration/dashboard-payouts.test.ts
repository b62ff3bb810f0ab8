import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { confirmFormFields } from '../helpers/dashboard.ts';
import { signedInBrowser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { NBM_UUID } from '../helpers/bank-payouts.ts';
import {
  accountMinor,
  fundMainBalance,
  initializePayout,
  payoutBody,
  settledByWorker,
  TEST_NUMBERS,
} from '../helpers/mobile-money.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

/** A wallet payout as the new payout form sends it. */
const WALLET_FORM = {
  kind: 'wallet',
  mobile: TEST_NUMBERS.airtelSuccess,
  bank_uuid: '',
  bank_account_number: '',
  bank_account_name: 'Peter Phiri',
  amount: '1000',
};

for (const kind of DATABASE_KINDS) {
  describe(`dashboard payouts (${kind})`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });
    const db = () => ctx.gw.gateway.database.db;

    const signedIn = (role: 'owner' | 'developer' | 'viewer', merchant: MerchantCredentials) =>
      signedInBrowser(ctx.gw, role, merchant.id);
    const payoutRows = (merchantId: string) =>
      db()
        .selectFrom('charges')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('kind', '=', 'payout')
        .execute();
    const auditRows = (merchantId: string) =>
      db()
        .selectFrom('audit_log')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('action', '=', 'payout.create')
        .execute();

    test('a wallet payout: the confirmation shows fee and balances; sending it twice pays once, with one audit entry', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000); // 5,000 less its 3 % fee: MWK 4,850.00 in main
      const browser = await signedIn('owner', merchant);
      const form = await browser.get('/dashboard/payouts/new');
      assert.equal(form.status, 200);
      assert.match(form.text, /Main balance: <strong>MWK 4,850\.00<\/strong>/);

      const confirm = await browser.post('/dashboard/payouts/new/confirm', WALLET_FORM);
      assert.equal(confirm.status, 200, confirm.text);
      // PAYOUT_FEE_PERCENT is 1 % by default: MWK 10.00 on MWK 1,000.00.
      assert.match(confirm.text, /<dt>Amount<\/dt><dd>MWK 1,000\.00<\/dd>/);
      assert.match(confirm.text, /<dt>Fee<\/dt><dd>MWK 10\.00<\/dd>/);
      assert.match(confirm.text, /<dt>Total debited<\/dt><dd><strong>MWK 1,010\.00<\/strong><\/dd>/);
      assert.match(confirm.text, /<dt>Main balance now<\/dt><dd>MWK 4,850\.00<\/dd>/);
      assert.match(confirm.text, /<dt>Main balance after<\/dt><dd><strong>MWK 3,840\.00<\/strong><\/dd>/);
      assert.match(confirm.text, /0990000000 \(Airtel Money\)/);
      assert.equal((await payoutRows(merchant.id)).length, 0, 'confirming writes nothing');
      assert.equal(await accountMinor(ctx.gw, merchant.id, 'main'), 485_000);

      const fields = confirmFormFields(confirm.text, '/dashboard/payouts');
      assert.match(fields.charge_id!, /^dash_[A-Za-z0-9]{20}$/);
      const [first, second] = await Promise.all([
        browser.post('/dashboard/payouts', fields),
        browser.post('/dashboard/payouts', fields),
      ]);
      const third = await browser.post('/dashboard/payouts', fields);
      const payouts = await payoutRows(merchant.id);
      assert.equal(payouts.length, 1, 'one payout, however often the form was sent');
      for (const answer of [first, second, third]) {
        assert.equal(answer.status, 303, answer.text);
        assert.equal(answer.location, `/dashboard/payouts/${payouts[0]!.id}?sent=1`);
      }
      // Once the payout has ended, its charge_id is no longer a retry for the API: the form sent again still finds it.
      await settledByWorker(ctx.gw, merchant.id, fields.charge_id!);
      const late = await browser.post('/dashboard/payouts', fields);
      assert.equal(late.status, 303, late.text);
      assert.equal(late.location, `/dashboard/payouts/${payouts[0]!.id}?sent=1`);
      assert.equal((await payoutRows(merchant.id)).length, 1);
      assert.equal(payouts[0]!.charge_id, fields.charge_id);
      assert.equal(payouts[0]!.amount_minor, 100_000);
      assert.equal(payouts[0]!.fee_minor, 1_000);
      assert.equal(
        await accountMinor(ctx.gw, merchant.id, 'main'),
        384_000,
        'the main balance is debited once, amount and fee',
      );
      const reserves = await db()
        .selectFrom('ledger_transactions')
        .select('id')
        .where('reference', '=', payouts[0]!.id)
        .where('kind', '=', 'payout_reserve')
        .execute();
      assert.equal(reserves.length, 1);

      const audit = await auditRows(merchant.id);
      assert.equal(audit.length, 1, 'one audit entry');
      assert.equal(audit[0]!.subject, payouts[0]!.id);
      assert.ok(audit[0]!.user_id);
      assert.deepEqual(JSON.parse(audit[0]!.detail!), {
        charge_id: fields.charge_id,
        amount_minor: 100_000,
        fee_minor: 1_000,
        currency: 'MWK',
        bank_uuid: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
      });

      const detail = await browser.get(first.location!);
      assert.equal(detail.status, 200);
      assert.match(detail.text, /The payout was sent/);
      assert.match(detail.text, /<dt>Fee<\/dt><dd>MWK 10\.00<\/dd>/);
      assert.match(detail.text, /0990xxxx00 \(Airtel Money\)/, 'the wallet number is masked');
      assert.doesNotMatch(detail.text, /0990000000/);
      assert.match(detail.text, / CAT</, 'times are in the gateway TIMEZONE');

      const list = await browser.get('/dashboard/payouts');
      assert.match(list.text, new RegExp(`href="/dashboard/payouts/${payouts[0]!.id}"`));
      assert.match(list.text, /class="status status-(pending|success)"/);
      assert.match(list.text, /href="\/dashboard\/payouts\/new">New payout/);
    });

    test('a bank payout shows the bank and the last four digits of the account', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      const browser = await signedIn('owner', merchant);
      await browser.get('/dashboard/payouts/new');
      const confirm = await browser.post('/dashboard/payouts/new/confirm', {
        kind: 'bank',
        mobile: '',
        bank_uuid: NBM_UUID,
        bank_account_number: '1001000010',
        bank_account_name: 'Madalitso Kamwendo',
        amount: '2,000',
      });
      assert.equal(confirm.status, 200, confirm.text);
      assert.match(confirm.text, /National Bank of Malawi, account 1001000010/);
      const sent = await browser.post('/dashboard/payouts', confirmFormFields(confirm.text, '/dashboard/payouts'));
      assert.equal(sent.status, 303, sent.text);
      const detail = await browser.get(sent.location!);
      assert.match(detail.text, /National Bank of Malawi, account ending 0010/);
      assert.match(detail.text, /Madalitso Kamwendo/);
      assert.doesNotMatch(detail.text, /1001000010/);
    });

    test('bad input and a balance too small are shown on the form (422) and write nothing', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 1000); // MWK 970.00
      const browser = await signedIn('owner', merchant);
      await browser.get('/dashboard/payouts/new');
      const poor = await browser.post('/dashboard/payouts/new/confirm', { ...WALLET_FORM, amount: '970' });
      assert.equal(poor.status, 422);
      assert.match(poor.text, /The amount and its fee \(MWK 9\.70\) exceed the main balance\./);
      assert.match(poor.text, /aria-describedby="amount-error"/);
      assert.match(poor.text, /value="Peter Phiri"/, 'the form keeps what was typed');

      const wrong = await browser.post('/dashboard/payouts/new/confirm', {
        ...WALLET_FORM,
        mobile: '0123',
        amount: 'ten',
      });
      assert.equal(wrong.status, 422);
      assert.match(wrong.text, /Enter an Airtel Money or TNM Mpamba number/);
      const nameless = await browser.post('/dashboard/payouts/new/confirm', { ...WALLET_FORM, bank_account_name: ' ' });
      assert.equal(nameless.status, 422);
      assert.match(
        nameless.text,
        /<p class="field-error" id="bank_account_name-error">The bank account name field is required: for an Airtel Money wallet, the name of its holder\.<\/p>/,
      );
      const badAccount = await browser.post('/dashboard/payouts/new/confirm', {
        ...WALLET_FORM,
        kind: 'bank',
        bank_uuid: NBM_UUID,
        bank_account_number: '12',
        amount: 'ten',
      });
      assert.equal(badAccount.status, 422);
      assert.match(badAccount.text, /The amount must be an integer\./, "the API's own message");

      // The balance fell between confirming and sending (here: the API paid out meanwhile).
      const confirm = await browser.post('/dashboard/payouts/new/confirm', { ...WALLET_FORM, amount: '500' });
      assert.equal(confirm.status, 200);
      const fields = confirmFormFields(confirm.text, '/dashboard/payouts');
      assert.equal((await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 500 }))).status, 201);
      const late = await browser.post('/dashboard/payouts', fields);
      assert.equal(late.status, 422);
      assert.match(late.text, /The amount and its fee exceed the available balance\./);
      assert.equal((await payoutRows(merchant.id)).length, 1, 'only the API payout');
      assert.equal((await auditRows(merchant.id)).length, 0);

      const unconfirmed = await browser.post('/dashboard/payouts', { ...WALLET_FORM, amount: '10' });
      assert.equal(unconfirmed.status, 422, 'a send without the confirmation step is not a payout');
      assert.equal((await payoutRows(merchant.id)).length, 1);
    });

    for (const role of ['developer', 'viewer'] as const) {
      test(`a ${role} sees payouts but cannot make one (403, nothing written)`, async () => {
        const merchant = await ctx.gw.newMerchant();
        await fundMainBalance(ctx.gw, merchant, 5000);
        const browser = await signedIn(role, merchant);
        const list = await browser.get('/dashboard/payouts');
        assert.equal(list.status, 200);
        assert.doesNotMatch(list.text, /New payout/);
        assert.equal((await browser.get('/dashboard/payouts/new')).status, 403);
        assert.equal((await browser.post('/dashboard/payouts/new/confirm', WALLET_FORM)).status, 403);
        const sent = await browser.post('/dashboard/payouts', {
          ...WALLET_FORM,
          charge_id: 'dash_AAAAAAAAAAAAAAAAAAAA',
        });
        assert.equal(sent.status, 403);
        assert.equal((await payoutRows(merchant.id)).length, 0);
        assert.equal((await auditRows(merchant.id)).length, 0);
        assert.equal(await accountMinor(ctx.gw, merchant.id, 'main'), 485_000);
      });
    }

    test("another merchant's payout, and one of the other mode, are not found (404)", async () => {
      const other = await ctx.gw.newMerchant('Other Shop');
      await fundMainBalance(ctx.gw, other, 5000);
      assert.equal((await initializePayout(ctx.gw, other.test_secret_key, payoutBody({ amount: 100 }))).status, 201);
      const [theirs] = await payoutRows(other.id);
      const merchant = await ctx.gw.newMerchant();
      const browser = await signedIn('owner', merchant);
      const foreign = await browser.get(`/dashboard/payouts/${theirs!.id}`);
      assert.equal(foreign.status, 404);
      assert.match(foreign.text, /No such payout/);
      assert.doesNotMatch((await browser.get('/dashboard/payouts')).text, new RegExp(theirs!.id));

      const owner = await signedIn('owner', other);
      assert.equal(
        (await owner.get(`/dashboard/payouts/${theirs!.id}`)).status,
        200,
        'its own merchant sees it in test mode',
      );
      assert.equal((await owner.post('/dashboard/mode', { mode: 'live', back: '/dashboard/payouts' })).status, 303);
      assert.equal((await owner.get(`/dashboard/payouts/${theirs!.id}`)).status, 404, 'not in live mode');
      assert.match((await owner.get('/dashboard/payouts')).text, /No payouts in live mode yet/);
    });

    test('the list pages with a cursor, newest first', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 100_000);
      for (let i = 0; i < 27; i += 1)
        assert.equal(
          (await initializePayout(ctx.gw, merchant.test_secret_key, payoutBody({ amount: 10 + i }))).status,
          201,
        );
      const browser = await signedIn('viewer', merchant);
      const first = await browser.get('/dashboard/payouts');
      const ids = (html: string) =>
        [...html.matchAll(/href="\/dashboard\/payouts\/(chg_[A-Za-z0-9]+)"/g)].map((match) => match[1]);
      assert.equal(ids(first.text).length, 25);
      assert.match(first.text, /MWK 36\.00/, 'the newest first');
      const next = /href="(\/dashboard\/payouts\?before=[^"]+)">Older payouts/.exec(first.text)?.[1];
      assert.ok(next);
      const second = await browser.get(next);
      assert.equal(ids(second.text).length, 2);
      assert.match(second.text, /MWK 10\.00/);
      assert.doesNotMatch(second.text, /Older payouts/);
      assert.equal(new Set([...ids(first.text), ...ids(second.text)]).size, 27);
      assert.equal(
        (await browser.get('/dashboard/payouts?before=nonsense')).status,
        200,
        'a cursor that is not one is ignored',
      );
    });
  });
}
