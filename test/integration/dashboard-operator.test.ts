import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, withoutCellLabels, type PageAnswer } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeBody, eventually, initializeCharge, verify } from '../helpers/mobile-money.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';

/** The value of a key the result page shows once, by its label. */
function shownKey(page: PageAnswer, label: string): string {
  // The Copy button follows the value.
  const value = new RegExp(`<dt>${label}</dt><dd><span class="secret">([^<]+)</span>`).exec(page.text)?.[1];
  assert.ok(value, `the page shows the ${label}`);
  return value;
}

for (const kind of DATABASE_KINDS) {
  describe(`dashboard operator pages (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let operator: DashboardBrowser;
    let operatorId: string;
    const receivers: Receiver[] = [];

    before(async () => {
      gw = await startTestGateway(kind);
      merchant = await gw.newMerchant('Existing Shop');
      const email = await dashboardUser(gw, 'operator');
      operatorId = (await db().selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow())
        .id;
      operator = new DashboardBrowser(gw.url);
      assert.equal((await operator.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard');
    });
    after(async () => {
      for (const receiver of receivers) await receiver.close();
      await gw.close();
    });

    const db = () => gw.gateway.database.db;
    const audit = (action: string, subject: string) =>
      db().selectFrom('audit_log').selectAll().where('action', '=', action).where('subject', '=', subject).execute();

    test("a merchant's users cannot open the operator pages nor act for a merchant", async () => {
      for (const role of ['owner', 'developer', 'viewer'] as const) {
        const browser = new DashboardBrowser(gw.url);
        await browser.signIn(await dashboardUser(gw, role, merchant.id), DASHBOARD_PASSWORD);
        await browser.get('/dashboard');
        assert.doesNotMatch(
          (await browser.get('/dashboard')).text,
          /href="\/dashboard\/operator"/,
          `no Operator link for ${role}`,
        );
        assert.equal((await browser.get('/dashboard/operator')).status, 403, role);
        assert.equal((await browser.get('/dashboard/operator/merchants/new')).status, 403, role);
        assert.equal((await browser.get(`/dashboard/operator/merchants/${merchant.id}`)).status, 403, role);
        assert.equal(
          (
            await browser.post('/dashboard/operator/merchants/new', {
              name: 'Sneaky',
              email: 'sneaky@example.com',
              fee_percent: '0',
            })
          ).status,
          403,
          role,
        );
        assert.equal(
          (await browser.post(`/dashboard/operator/merchants/${merchant.id}/fees`, { fee_percent: '0' })).status,
          403,
          role,
        );
        assert.equal((await browser.post('/dashboard/operator/act', { merchant_id: merchant.id })).status, 403, role);
      }
      assert.equal((await db().selectFrom('merchants').select('id').where('name', '=', 'Sneaky').execute()).length, 0);
      assert.equal(
        (await db().selectFrom('merchants').select('fee_bps').where('id', '=', merchant.id).executeTakeFirstOrThrow())
          .fee_bps,
        300,
      );
    });

    test('signed in, an operator acting for no merchant is sent to the operator page, which lists the merchants', async () => {
      assert.equal((await operator.get('/dashboard')).location, '/dashboard/operator');
      assert.equal((await operator.get('/dashboard/payments')).location, '/dashboard/operator');
      const page = await operator.get('/dashboard/operator');
      assert.equal(page.status, 200);
      assert.match(page.text, /You act for no merchant/);
      assert.ok(page.text.includes(`<a href="/dashboard/operator/merchants/${merchant.id}">Existing Shop</a>`));
      assert.match(page.text, /Act for Existing Shop/);
    });

    test('the operator creates a merchant: its keys are shown once and work, it is listed, and the creation is audited', async () => {
      const form = await operator.get('/dashboard/operator/merchants/new');
      assert.equal(form.status, 200);
      assert.match(form.text, /name="fee_percent" required value="3"/, "the gateway's default fee is proposed");

      const refused = await operator.post('/dashboard/operator/merchants/new', {
        name: 'Mphatso Foods',
        email: 'not an email',
        webhook_url: '',
        fee_percent: '2.5',
      });
      assert.equal(refused.status, 422);
      assert.match(refused.text, /&quot;not an email&quot; is not an email address\./);
      assert.match(refused.text, /value="Mphatso Foods"/, 'the form keeps what was typed');
      for (const [field, value, message] of [
        ['webhook_url', 'ftp://x.example', /absolute http\(s\) URL/],
        ['fee_percent', '101', /percentage from 0 to 100/],
        ['name', '  ', /Give the business a name/],
      ] as const) {
        const answer = await operator.post('/dashboard/operator/merchants/new', {
          name: 'Mphatso Foods',
          email: 'foods@example.com',
          webhook_url: '',
          fee_percent: '2.5',
          [field]: value,
        });
        assert.equal(answer.status, 422, field);
        assert.match(answer.text, message);
      }
      assert.equal(
        (await db().selectFrom('merchants').select('id').where('name', '=', 'Mphatso Foods').execute()).length,
        0,
        'nothing made from a refused form',
      );

      const created = await operator.post('/dashboard/operator/merchants/new', {
        name: 'Mphatso Foods',
        email: 'foods@example.com',
        webhook_url: 'https://foods.example/hooks',
        fee_percent: '2.5',
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('cache-control'), 'no-store');
      const id = /<dt>Merchant id<\/dt><dd><code>(mer_[A-Za-z0-9]+)<\/code>/.exec(created.text)?.[1];
      assert.ok(id, created.text);
      const testKey = shownKey(created, 'Test secret key');
      assert.match(testKey, /^sec-test-/);
      assert.match(shownKey(created, 'Live secret key'), /^sec-live-/);
      assert.match(shownKey(created, 'Webhook secret'), /^whsec_/);
      const row = await db().selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.name, row.email, row.webhook_url, row.fee_bps],
        ['Mphatso Foods', 'foods@example.com', 'https://foods.example/hooks', 250],
      );
      assert.equal((await call(gw.url, '/wallet-balance', { key: testKey })).status, 200, 'the shown test key works');

      const [entry] = await audit('merchant.create', id);
      assert.ok(entry, 'the creation is audited');
      assert.equal(entry.user_id, operatorId);
      assert.equal(entry.merchant_id, id);
      assert.ok(!entry.detail!.includes(testKey), 'no secret in the audit log');

      const list = await operator.get('/dashboard/operator');
      assert.ok(list.text.includes(`<a href="/dashboard/operator/merchants/${id}">Mphatso Foods</a>`));
      const own = await operator.get(`/dashboard/operator/merchants/${id}`);
      assert.equal(own.status, 200);
      assert.ok(!list.text.includes(testKey) && !own.text.includes(testKey), 'the keys are not shown again');
    });

    test('the operator sets a merchant fee (audited, from and to), and a bad fee is refused with the form again', async () => {
      const bad = await operator.post(`/dashboard/operator/merchants/${merchant.id}/fees`, { fee_percent: '1.234' });
      assert.equal(bad.status, 422);
      assert.match(bad.text, /percentage from 0 to 100 with at most two decimals/);
      assert.match(bad.text, /value="1\.234"/);
      const saved = await operator.post(`/dashboard/operator/merchants/${merchant.id}/fees`, { fee_percent: '1.75' });
      assert.equal(saved.location, `/dashboard/operator/merchants/${merchant.id}?saved=fee`);
      assert.equal(
        (await db().selectFrom('merchants').select('fee_bps').where('id', '=', merchant.id).executeTakeFirstOrThrow())
          .fee_bps,
        175,
      );
      const [entry] = await audit('merchant.fees', merchant.id);
      assert.ok(entry);
      assert.equal(entry.user_id, operatorId);
      assert.deepEqual(JSON.parse(entry.detail!), { from_percent: 3, to_percent: 1.75 });
      const page = await operator.get(saved.location!);
      assert.match(page.text, /The fee is saved\./);
      assert.match(page.text, /<dt>Fee<\/dt><dd>1\.75 %<\/dd>/);
      assert.equal(
        (await operator.post('/dashboard/operator/merchants/mer_nobody/fees', { fee_percent: '1' })).status,
        404,
      );
    });

    test("the operator adds a user to a merchant: invited by link, listed, audited as the operator's doing", async () => {
      const refused = await operator.post(`/dashboard/operator/merchants/${merchant.id}/users`, {
        email: 'dev@existing.example',
        role: 'operator',
      });
      assert.equal(refused.status, 422, 'a merchant user cannot be made an operator');
      const added = await operator.post(`/dashboard/operator/merchants/${merchant.id}/users`, {
        email: 'Dev@Existing.example',
        role: 'developer',
      });
      assert.equal(added.location, `/dashboard/operator/merchants/${merchant.id}?saved=user`);
      const user = await db()
        .selectFrom('users')
        .selectAll()
        .where('email', '=', 'dev@existing.example')
        .executeTakeFirstOrThrow();
      assert.deepEqual([user.merchant_id, user.role, user.password_hash], [merchant.id, 'developer', null]);
      const [entry] = await audit('user.create', user.id);
      assert.equal(entry?.user_id, operatorId);
      assert.ok(
        await db()
          .selectFrom('emails')
          .select('id')
          .where('kind', '=', 'set_password')
          .where('recipient', '=', user.email)
          .executeTakeFirst(),
        'the link is emailed',
      );
      const page = await operator.get(added.location!);
      assert.match(
        withoutCellLabels(page.text),
        /<td>dev@existing\.example<\/td><td>developer<\/td><td>link sent, not used yet<\/td>/,
      );
      const again = await operator.post(`/dashboard/operator/merchants/${merchant.id}/users`, {
        email: 'dev@existing.example',
        role: 'viewer',
      });
      assert.equal(again.status, 422);
      assert.match(again.text, /already exists/);
    });

    test('the operator acts for a merchant (audited): the merchant pages show it; stopping clears it', async () => {
      const charge = chargeBody({ amount: 800 });
      assert.equal((await initializeCharge(gw, merchant.test_secret_key, charge)).status, 201);
      await verify(gw, merchant.test_secret_key, String(charge.charge_id), 'success');
      const row = withoutCellLabels((await operator.get('/dashboard/operator')).text)
        .split('<tr>')
        .find((cells) => cells.includes('>Existing Shop</a>'))!;
      assert.match(
        row,
        /<td>1\.75 %<\/td><td>\d+<\/td><td>—<\/td><td>MWK 800\.00<\/td>/,
        'the fee, users, no live volume, the test payment in the test volume',
      );

      assert.equal((await operator.post('/dashboard/operator/act', { merchant_id: 'mer_nobody' })).status, 404);
      const acted = await operator.post('/dashboard/operator/act', { merchant_id: merchant.id });
      assert.equal(acted.location, '/dashboard');
      assert.equal(operator.cookies.get('lipira_acting'), merchant.id);
      assert.ok(
        operator.setCookies.some((header) =>
          header.startsWith(`lipira_acting=${merchant.id}; Path=/dashboard; HttpOnly; SameSite=Lax`),
        ),
      );
      const [entry] = await audit('operator.act_for', merchant.id);
      assert.ok(entry, 'acting for a merchant is audited');
      assert.deepEqual([entry.user_id, entry.merchant_id], [operatorId, merchant.id]);

      const home = await operator.get('/dashboard');
      assert.equal(home.status, 200);
      assert.match(home.text, /\(operator\) for <strong>Existing Shop<\/strong>/);
      assert.ok(home.text.includes(String(charge.charge_id)), "the merchant's payment is on its overview");
      assert.match(home.text, /Stop acting/);
      const payments = await operator.get('/dashboard/payments');
      assert.equal(payments.status, 200);
      assert.match(payments.text, /<span class="whose">Existing Shop<\/span>/);
      assert.match((await operator.get('/dashboard/operator')).text, /You act for <strong>Existing Shop<\/strong>/);

      const stopped = await operator.post('/dashboard/operator/act', { merchant_id: '' });
      assert.equal(stopped.location, '/dashboard/operator?stopped=1');
      assert.equal(operator.cookies.has('lipira_acting'), false, 'the cookie is cleared');
      assert.equal((await operator.get('/dashboard/payments')).location, '/dashboard/operator');
      assert.match((await operator.get(stopped.location!)).text, /You no longer act for any merchant\./);
    });

    test('the health section shows the workers of the serving process, the pending webhook deliveries as the database holds them, pending charges, due settlements and the review flags', async () => {
      const receiver = await startReceiver(() => ({ status: 500, body: 'down' }));
      receivers.push(receiver);
      const hooked = await gw.newMerchant('Hooked Shop');
      await updateMerchantSettings(db(), hooked.id, { webhookUrl: receiver.url }, Date.now());
      const charge = chargeBody({ amount: 900 });
      await initializeCharge(gw, hooked.test_secret_key, charge);
      await verify(gw, hooked.test_secret_key, String(charge.charge_id), 'success');
      await receiver.waitFor(1);
      const pending = await eventually('a pending delivery after a failed try', async () => {
        const rows = await db()
          .selectFrom('webhook_deliveries')
          .select(['status', 'attempts'])
          .where('status', '=', 'pending')
          .execute();
        return rows.length > 0 && rows.every((row) => row.attempts > 0) && rows.length;
      });
      const page = await operator.get('/dashboard/operator');
      const queues = withoutCellLabels(page.text);
      const cells = /<td>Webhook deliveries<\/td><td>(\d+)<\/td><td>([^<]*)<\/td>/.exec(queues);
      assert.ok(cells, 'the queues table has the deliveries');
      assert.equal(Number(cells[1]), pending);
      assert.match(queues, /<td>Emails<\/td><td>\d+<\/td>/);
      assert.match(
        queues,
        /<td>Payments and payouts awaiting the provider<\/td><td>0<\/td><td>nothing due<\/td>/,
        'every charge made here has ended',
      );
      assert.match(page.text, /Collection balances waiting for the next settlement: <strong>[1-9]\d*<\/strong>/);
      assert.match(page.text, /Nothing to review/);
      assert.match(
        page.text,
        /Workers of the process serving this page: <strong>5 of 5 running<\/strong>\./,
        'the settler, webhook, email, settlement and automatic payout workers',
      );

      await db()
        .updateTable('charges')
        .set({ review_reason: 'no final answer from Airtel for 2 hours' })
        .where('charge_id', '=', String(charge.charge_id))
        .execute();
      await db()
        .updateTable('charges')
        .set({ status: 'pending', check_at: null })
        .where('charge_id', '=', String(charge.charge_id))
        .execute();
      const flagged = withoutCellLabels((await operator.get('/dashboard/operator')).text);
      assert.match(
        flagged,
        /<td>Payments and payouts awaiting the provider<\/td><td>1<\/td><td>nothing due<\/td><td>—<\/td>/,
        'the one pending charge, not due for a check',
      );
      assert.match(flagged, new RegExp(`<td>payment</td><td><code>${charge.charge_id}</code></td>`));
      assert.match(flagged, /no final answer from Airtel for 2 hours/);
      await db()
        .updateTable('charges')
        .set({ status: 'success', review_reason: null })
        .where('charge_id', '=', String(charge.charge_id))
        .execute();
    });
  });
}
