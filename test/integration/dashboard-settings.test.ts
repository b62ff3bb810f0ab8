import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

const LINK = /\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43})/;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard settings, team and audit log (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let other: MerchantCredentials;

    before(async () => {
      gw = await startTestGateway(kind);
      merchant = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
    });
    after(() => gw.close());

    const db = () => gw.gateway.database.db;
    const userRow = (email: string) => db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const merchantRow = () => db().selectFrom('merchants').selectAll().where('id', '=', merchant.id).executeTakeFirstOrThrow();
    async function signedIn(role: 'owner' | 'developer' | 'viewer', merchantId = merchant.id): Promise<{ browser: DashboardBrowser; email: string }> {
      const browser = new DashboardBrowser(gw.url);
      const email = await dashboardUser(gw, role, merchantId);
      assert.equal((await browser.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard');
      await browser.get('/dashboard/settings');
      return { browser, email };
    }

    test('business settings are validated, saved, audited, and brand the hosted checkout page (escaped)', async () => {
      const { browser } = await signedIn('owner');
      for (const [form, message] of [
        [{ name: '', logo_url: '', brand_color: '' }, /business name/],
        [{ name: 'Shop', logo_url: 'http://shop.example.com/logo.png', brand_color: '' }, /https:\/\//],
        [{ name: 'Shop', logo_url: 'javascript:alert(1)', brand_color: '' }, /https:\/\//],
        [{ name: 'Shop', logo_url: '', brand_color: 'red;}' }, /six hexadecimal digits/],
      ] as const) {
        const refused = await browser.post('/dashboard/settings', form);
        assert.equal(refused.status, 422, JSON.stringify(form));
        assert.match(refused.text, message);
      }
      const name = 'Chikondi <b>Crafts</b> & "Co"';
      const saved = await browser.post('/dashboard/settings', { name, logo_url: 'https://cdn.example.com/logo.png?a=1&b="x"', brand_color: '#1A7F5A' });
      assert.equal(saved.location, '/dashboard/settings?done=settings');
      const row = await merchantRow();
      assert.deepEqual([row.name, row.logo_url, row.brand_color, row.receipts_enabled], [name, 'https://cdn.example.com/logo.png?a=1&b="x"', '#1a7f5a', 0]);
      const page = await browser.get('/dashboard/settings?done=settings');
      assert.ok(page.text.includes('Chikondi &lt;b&gt;Crafts&lt;/b&gt; &amp; &quot;Co&quot;') && !page.text.includes('<b>Crafts</b>'), 'escaped on the settings page');
      const [entry] = await db().selectFrom('audit_log').selectAll().where('merchant_id', '=', merchant.id).where('action', '=', 'merchant.settings').execute();
      assert.deepEqual(JSON.parse(entry!.detail!).receipts, { from: true, to: false });

      const created = await call(gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody({ customization: { title: 'Order 7' } }) });
      assert.equal(created.status, 201, created.text);
      const checkout = await (await fetch(created.body.data.checkout_url)).text();
      assert.ok(checkout.includes('Chikondi &lt;b&gt;Crafts&lt;/b&gt; &amp; &quot;Co&quot;') && !checkout.includes('<b>Crafts</b>'), 'the business name, escaped');
      assert.ok(checkout.includes('src="https://cdn.example.com/logo.png?a=1&amp;b=&quot;x&quot;"'), 'the merchant logo, escaped, where the session has none');
      assert.match(checkout, /<svg class="brand-accent"[^>]*><rect width="10" height="1" fill="#1a7f5a"\/><\/svg>/, 'the colour as an accent bar');

      const own = await call(gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody({ customization: { title: 'Order 8', logo: 'https://shop.example.com/own.png' } }) });
      const ownPage = await (await fetch(own.body.data.checkout_url)).text();
      assert.ok(ownPage.includes('src="https://shop.example.com/own.png"') && !ownPage.includes('cdn.example.com'), "a session's own logo wins");
      await browser.post('/dashboard/settings', { name: 'Chikondi Crafts', logo_url: 'https://cdn.example.com/logo.png', brand_color: '#1a7f5a', receipts: 'on' });
      assert.equal((await merchantRow()).receipts_enabled, 1);
      const paid = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess);
      const receipt = await eventually('the customer receipt', () => db().selectFrom('emails').selectAll().where('kind', '=', 'customer_receipt').where('text_body', 'like', `%${paid.txRef}%`).executeTakeFirst());
      assert.match(receipt.html_body, /<div style="height:4px;background:#1a7f5a"><\/div>/, 'the receipt carries the colour as a rule');
      assert.match(receipt.html_body, /<img src="https:\/\/cdn.example.com\/logo.png" alt="Chikondi Crafts"/, 'and the merchant logo');
      await browser.post('/dashboard/settings', { name: 'Chikondi Crafts', logo_url: '', brand_color: '', receipts: 'on' });
    });

    test('an owner invites a member (set-password link in the outbox), changes roles, removes them; the last owner is kept', async () => {
      const team = await gw.newMerchant('Team Shop');
      const { browser, email: ownerEmail } = await signedIn('owner', team.id);
      assert.equal((await browser.post('/dashboard/settings/team/invite', { email: 'not-an-address', role: 'viewer' })).status, 422);
      assert.equal((await browser.post('/dashboard/settings/team/invite', { email: 'x@example.com', role: 'operator' })).status, 422, 'no operator from a merchant');
      const invited = await browser.post('/dashboard/settings/team/invite', { email: 'Thoko@Example.com', role: 'developer' });
      assert.equal(invited.location, '/dashboard/settings?done=invited');
      const thoko = await userRow('thoko@example.com');
      assert.deepEqual([thoko.merchant_id, thoko.role, thoko.password_hash], [team.id, 'developer', null]);
      const mail = await db().selectFrom('emails').selectAll().where('recipient', '=', 'thoko@example.com').where('kind', '=', 'set_password').executeTakeFirstOrThrow();
      const token = LINK.exec(mail.text_body)![1]!;
      const [created] = await db().selectFrom('audit_log').selectAll().where('action', '=', 'user.create').where('subject', '=', thoko.id).execute();
      assert.equal(created!.user_id, (await userRow(ownerEmail)).id, 'audited as done by the owner');
      assert.equal((await browser.post('/dashboard/settings/team/invite', { email: 'thoko@example.com', role: 'viewer' })).status, 422, 'once per address');

      assert.equal((await browser.post(`/dashboard/settings/team/${thoko.id}/role`, { role: 'viewer' })).location, '/dashboard/settings?done=role');
      assert.equal((await userRow('thoko@example.com')).role, 'viewer');
      assert.equal((await browser.post(`/dashboard/settings/team/${thoko.id}/role`, { role: 'operator' })).status, 422);

      const owner = await userRow(ownerEmail);
      const alone = await browser.post(`/dashboard/settings/team/${owner.id}/role`, { role: 'viewer' });
      assert.equal(alone.status, 422);
      assert.match(alone.text, /last owner/);
      assert.equal((await browser.post(`/dashboard/settings/team/${owner.id}/remove`, {})).status, 422, 'the last owner cannot remove themselves');
      assert.equal((await userRow(ownerEmail)).role, 'owner');

      const foreign = await userRow(await dashboardUser(gw, 'viewer', other.id));
      assert.equal((await browser.post(`/dashboard/settings/team/${foreign.id}/remove`, {})).status, 422, "another merchant's user is not on this team");
      assert.equal((await userRow(foreign.email)).role, 'viewer');

      const { browser: member, email: memberEmail } = await signedIn('viewer', team.id);
      const memberRow = await userRow(memberEmail);
      await browser.get('/dashboard/settings');
      assert.equal((await browser.post(`/dashboard/settings/team/${memberRow.id}/remove`, {})).location, '/dashboard/settings?done=removed');
      assert.equal((await member.get('/dashboard/settings')).location, '/dashboard/login', "removal ends the member's sessions");
      assert.equal((await new DashboardBrowser(gw.url).signIn(memberEmail, DASHBOARD_PASSWORD)).status, 401, 'and they cannot sign in again');
      assert.equal((await browser.post(`/dashboard/settings/team/${thoko.id}/remove`, {})).status, 303);
      assert.equal((await fetch(`${gw.url}/dashboard/set-password?token=${token}`)).status, 404, "a removed invitee's link no longer works");
      const listed = await browser.get('/dashboard/settings');
      assert.ok(!listed.text.includes(memberEmail) && !listed.text.includes('thoko@example.com'), 'removed members are not listed');
      const actions = (await db().selectFrom('audit_log').select('action').where('merchant_id', '=', team.id).execute()).map((row) => row.action);
      assert.ok(actions.includes('user.role_change') && actions.includes('user.remove'));

      const { browser: second } = await signedIn('owner', team.id);
      assert.equal((await second.post(`/dashboard/settings/team/${owner.id}/role`, { role: 'developer' })).status, 303, 'with another owner, an owner may be demoted');
    });

    test('a change is audited with the fields it changed only; a form sent again unchanged writes no entry and says nothing changed', async () => {
      const shop = await gw.newMerchant('Same Shop');
      const { browser } = await signedIn('owner', shop.id);
      const entries = async (action: string) => (await db().selectFrom('audit_log').select('detail').where('merchant_id', '=', shop.id).where('action', '=', action).execute()).map((row) => JSON.parse(row.detail ?? 'null'));
      const saysUnchanged = async (location: string | null) => assert.match((await browser.get(location!)).text, /<p class="notice" role="status">Nothing changed/);

      const business = { name: 'Same Shop', logo_url: '', brand_color: '#1a7f5a', receipts: 'on' };
      assert.equal((await browser.post('/dashboard/settings', business)).location, '/dashboard/settings?done=settings');
      assert.deepEqual(await entries('merchant.settings'), [{ brand_color: { from: '', to: '#1a7f5a' } }], 'the brand colour alone changed');
      const again = await browser.post('/dashboard/settings', { ...business, brand_color: '#1A7F5A ' });
      assert.equal(again.location, '/dashboard/settings?done=unchanged');
      await saysUnchanged(again.location);
      assert.equal((await entries('merchant.settings')).length, 1, 'no entry for the same settings');

      const url = 'https://hooks.example.com/lipira';
      assert.equal((await browser.post('/dashboard/developers/webhook', { url })).location, '/dashboard/developers?done=url');
      const sameUrl = await browser.post('/dashboard/developers/webhook', { url: ` ${url} ` });
      assert.equal(sameUrl.location, '/dashboard/developers?done=unchanged');
      await saysUnchanged(sameUrl.location);
      assert.deepEqual(await entries('webhook.url_change'), [{ from: null, to: url }]);

      const member = await userRow(await dashboardUser(gw, 'developer', shop.id));
      const sameRole = await browser.post(`/dashboard/settings/team/${member.id}/role`, { role: 'developer' });
      assert.equal(sameRole.location, '/dashboard/settings?done=unchanged');
      await saysUnchanged(sameRole.location);
      assert.deepEqual(await entries('user.role_change'), []);

      const operator = new DashboardBrowser(gw.url);
      await operator.signIn(await dashboardUser(gw, 'operator'), DASHBOARD_PASSWORD);
      const fees = `/dashboard/operator/merchants/${shop.id}`;
      await operator.get(fees);
      const fee = String((await db().selectFrom('merchants').select('fee_bps').where('id', '=', shop.id).executeTakeFirstOrThrow()).fee_bps / 100);
      const sameFee = await operator.post(`${fees}/fees`, { fee_percent: fee });
      assert.equal(sameFee.location, `${fees}?saved=unchanged`);
      assert.match((await operator.get(sameFee.location!)).text, /<p class="notice" role="status">Nothing changed/);
      assert.deepEqual(await entries('merchant.fees'), []);
    });

    test("a notice asked for by a name every object has (constructor, __proto__) shows no notice, and no error page", async () => {
      const { browser } = await signedIn('owner');
      const operator = new DashboardBrowser(gw.url);
      await operator.signIn(await dashboardUser(gw, 'operator'), DASHBOARD_PASSWORD);
      for (const name of ['constructor', '__proto__', 'toString']) {
        for (const [who, path] of [[browser, `/dashboard/settings?done=${name}`], [browser, `/dashboard/developers?done=${name}`], [operator, `/dashboard/operator/merchants/${merchant.id}?saved=${name}`]] as const) {
          const page = await who.get(path);
          assert.equal(page.status, 200, path);
          assert.ok(!page.text.includes('class="notice"'), `${path}: no notice`);
        }
      }
    });

    test('a developer or viewer sees the settings but cannot change them or the team', async () => {
      for (const role of ['developer', 'viewer'] as const) {
        const { browser } = await signedIn(role);
        const page = await browser.get('/dashboard/settings');
        assert.equal(page.status, 200);
        assert.ok(!page.text.includes('action="/dashboard/settings"') && !page.text.includes('/dashboard/settings/team/'), `${role}: no forms`);
        assert.ok(page.text.includes('/dashboard/settings/two-factor'));
        assert.equal((await browser.post('/dashboard/settings', { name: 'Taken', receipts: 'on' })).status, 403);
        assert.equal((await browser.post('/dashboard/settings/team/invite', { email: 'x@example.com', role: 'owner' })).status, 403);
      }
      assert.equal((await merchantRow()).name, 'Chikondi Crafts');
    });

    test("the audit log lists this merchant's entries only, newest first, with who did them, in pages", async () => {
      const { browser, email } = await signedIn('owner');
      const { browser: stranger } = await signedIn('owner', other.id);
      await stranger.post('/dashboard/settings', { name: 'Other Shop Renamed', logo_url: '', brand_color: '' });
      await browser.post('/dashboard/settings', { name: 'Chikondi Crafts', logo_url: '', brand_color: '#000000', receipts: 'on' });
      const log = await browser.get('/dashboard/audit');
      assert.equal(log.status, 200);
      assert.ok(log.text.includes('Changed the settings') && log.text.includes('Added a team member'));
      assert.ok(log.text.includes(`<td>${email}</td><td>Changed the settings</td>`), 'who did it');
      assert.ok(!log.text.includes('Other Shop Renamed'), "not another merchant's entries");
      assert.match(log.text, /CAT|Africa\/Blantyre/, 'times in the gateway time zone');
      const rows = [...log.text.matchAll(/<tr><td>([^<]+)<\/td>/g)];
      assert.ok(rows.length > 3);
      const first = log.text.indexOf('Changed the settings');
      assert.ok(log.text.indexOf('Added a team member') > first || log.text.lastIndexOf('Changed the settings') > first, 'newest first');

      const now = Date.now();
      await db().insertInto('audit_log').values(Array.from({ length: 60 }, (_, n) => ({ id: `aud_page${String(n).padStart(3, '0')}`, merchant_id: merchant.id, user_id: null, action: 'key.roll', subject: `key_${n}`, detail: null, created_at: now + 1000 + n }))).execute();
      const newest = await browser.get('/dashboard/audit');
      assert.ok(newest.text.includes('key_59') && !newest.text.includes('key_9<') && newest.text.includes('command line'));
      const next = /href="(\/dashboard\/audit\?after=[^"]+)"/.exec(newest.text)![1]!;
      const older = await browser.get(next.replaceAll('&amp;', '&'));
      assert.ok(older.text.includes('<code>key_9</code>') && !older.text.includes('<code>key_59</code>'));
      assert.equal((await browser.get('/dashboard/audit?after=%00garbage')).status, 200, 'a bad cursor is ignored');
    });
  });
}
