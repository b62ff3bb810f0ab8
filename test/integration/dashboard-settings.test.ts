import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, withoutCellLabels, type PageAnswer } from '../helpers/dashboard.ts';
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
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const invitationRow = (id: string) =>
      db().selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    /** The token of the link emailed to an invited address (the latest). */
    async function invitationToken(email: string): Promise<string> {
      const mail = await db()
        .selectFrom('emails')
        .selectAll()
        .where('recipient', '=', email)
        .where('kind', '=', 'set_password')
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      return LINK.exec(mail.text_body)![1]!;
    }
    const merchantRow = () =>
      db().selectFrom('merchants').selectAll().where('id', '=', merchant.id).executeTakeFirstOrThrow();
    async function signedIn(
      role: 'owner' | 'developer' | 'viewer',
      merchantId = merchant.id,
    ): Promise<{ browser: DashboardBrowser; email: string }> {
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
      const saved = await browser.post('/dashboard/settings', {
        name,
        logo_url: 'https://cdn.example.com/logo.png?a=1&b="x"',
        brand_color: '#1A7F5A',
      });
      assert.equal(saved.location, '/dashboard/settings?done=settings');
      const row = await merchantRow();
      assert.deepEqual(
        [row.name, row.logo_url, row.brand_color, row.receipts_enabled],
        [name, 'https://cdn.example.com/logo.png?a=1&b="x"', '#1a7f5a', 0],
      );
      const page = await browser.get('/dashboard/settings?done=settings');
      assert.ok(
        page.text.includes('Chikondi &lt;b&gt;Crafts&lt;/b&gt; &amp; &quot;Co&quot;') &&
          !page.text.includes('<b>Crafts</b>'),
        'escaped on the settings page',
      );
      const [entry] = await db()
        .selectFrom('audit_log')
        .selectAll()
        .where('merchant_id', '=', merchant.id)
        .where('action', '=', 'merchant.settings')
        .execute();
      assert.deepEqual(JSON.parse(entry!.detail!).receipts, { from: true, to: false });

      const created = await call(gw.url, '/payment', {
        key: merchant.test_secret_key,
        body: currentBody({ customization: { title: 'Order 7' } }),
      });
      assert.equal(created.status, 201, created.text);
      const checkout = await (await fetch(created.body.data.checkout_url)).text();
      assert.ok(
        checkout.includes('Chikondi &lt;b&gt;Crafts&lt;/b&gt; &amp; &quot;Co&quot;') &&
          !checkout.includes('<b>Crafts</b>'),
        'the business name, escaped',
      );
      assert.ok(
        checkout.includes('src="https://cdn.example.com/logo.png?a=1&amp;b=&quot;x&quot;"'),
        'the merchant logo, escaped, where the session has none',
      );
      assert.match(
        checkout,
        /<svg class="brand-accent"[^>]*><rect width="10" height="1" fill="#1a7f5a"\/><\/svg>/,
        'the colour as an accent bar',
      );

      const own = await call(gw.url, '/payment', {
        key: merchant.test_secret_key,
        body: currentBody({ customization: { title: 'Order 8', logo: 'https://shop.example.com/own.png' } }),
      });
      const ownPage = await (await fetch(own.body.data.checkout_url)).text();
      assert.ok(
        ownPage.includes('src="https://shop.example.com/own.png"') && !ownPage.includes('cdn.example.com'),
        "a session's own logo wins",
      );
      await browser.post('/dashboard/settings', {
        name: 'Chikondi Crafts',
        logo_url: 'https://cdn.example.com/logo.png',
        brand_color: '#1a7f5a',
        receipts: 'on',
      });
      assert.equal((await merchantRow()).receipts_enabled, 1);
      const paid = await payByMobileMoney(gw.url, merchant.test_secret_key, TEST_NUMBERS.airtelSuccess);
      const receipt = await eventually('the customer receipt', () =>
        db()
          .selectFrom('emails')
          .selectAll()
          .where('kind', '=', 'customer_receipt')
          .where('text_body', 'like', `%${paid.txRef}%`)
          .executeTakeFirst(),
      );
      assert.match(
        receipt.html_body,
        /<div style="height:4px;background:#1a7f5a"><\/div>/,
        'the receipt carries the colour as a rule',
      );
      assert.match(
        receipt.html_body,
        /<img src="https:\/\/cdn.example.com\/logo.png" alt="Chikondi Crafts"/,
        'and the merchant logo',
      );
      await browser.post('/dashboard/settings', {
        name: 'Chikondi Crafts',
        logo_url: '',
        brand_color: '',
        receipts: 'on',
      });
    });

    test('an owner invites a member (set-password link in the outbox), who joins with it; changes roles, removes them; the last owner is kept', async () => {
      const team = await gw.newMerchant('Team Shop');
      const { browser, email: ownerEmail } = await signedIn('owner', team.id);
      assert.equal(
        (await browser.post('/dashboard/settings/team/invite', { email: 'not-an-address', role: 'viewer' })).status,
        422,
      );
      assert.equal(
        (await browser.post('/dashboard/settings/team/invite', { email: 'x@example.com', role: 'operator' })).status,
        422,
        'no operator from a merchant',
      );
      const invited = await browser.post('/dashboard/settings/team/invite', {
        email: 'Thoko@Example.com',
        role: 'developer',
      });
      assert.equal(invited.location, '/dashboard/settings?done=invited');
      const token = await invitationToken('thoko@example.com');
      const owner = await userRow(ownerEmail);
      const [audited] = await db()
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.invite')
        .where('merchant_id', '=', team.id)
        .execute();
      assert.equal(audited!.user_id, owner.id, 'audited as done by the owner');
      assert.deepEqual(JSON.parse(audited!.detail!), { email: 'thoko@example.com', role: 'developer' });
      assert.equal(
        await db().selectFrom('users').select('id').where('email', '=', 'thoko@example.com').executeTakeFirst(),
        undefined,
        'no user until the link is used',
      );
      const twice = await browser.post('/dashboard/settings/team/invite', {
        email: 'thoko@example.com',
        role: 'viewer',
      });
      assert.equal(twice.status, 422, 'once per address while the invitation is open');
      assert.match(twice.text, /thoko@example.com is invited already/);

      const invitee = new DashboardBrowser(gw.url);
      const form = await invitee.get(`/dashboard/set-password?token=${token}`);
      assert.match(form.text, /For <strong>thoko@example.com<\/strong>/);
      const weak = await invitee.post('/dashboard/set-password', {
        token,
        password: 'teamshop2026',
        confirm: 'teamshop2026',
      });
      assert.equal(weak.status, 422, "the team's name makes a password weak");
      assert.equal(
        (
          await invitee.post('/dashboard/set-password', {
            token,
            password: DASHBOARD_PASSWORD,
            confirm: DASHBOARD_PASSWORD,
          })
        ).location,
        '/dashboard/login?password_set=1',
      );
      const thoko = await userRow('thoko@example.com');
      assert.deepEqual([thoko.merchant_id, thoko.role], [team.id, 'developer']);
      assert.equal((await invitee.signIn('thoko@example.com', DASHBOARD_PASSWORD)).location, '/dashboard');
      assert.equal((await invitee.get(`/dashboard/set-password?token=${token}`)).status, 404, 'the link works once');
      const [joined] = await db()
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.invitation_accept')
        .where('subject', '=', thoko.id)
        .execute();
      assert.equal(joined!.user_id, thoko.id);
      const listed = await browser.get('/dashboard/settings');
      assert.ok(
        withoutCellLabels(listed.text).includes('<td>thoko@example.com</td><td>developer</td>') &&
          !listed.text.includes('/team/invitations/'),
        'a member now, no longer invited',
      );
      assert.match(
        (await browser.post('/dashboard/settings/team/invite', { email: 'thoko@example.com', role: 'viewer' })).text,
        /thoko@example.com is already on this team\./,
      );

      assert.equal(
        (await browser.post(`/dashboard/settings/team/${thoko.id}/role`, { role: 'viewer' })).location,
        '/dashboard/settings?done=role',
      );
      assert.equal((await userRow('thoko@example.com')).role, 'viewer');
      assert.equal((await browser.post(`/dashboard/settings/team/${thoko.id}/role`, { role: 'operator' })).status, 422);

      const alone = await browser.post(`/dashboard/settings/team/${owner.id}/role`, { role: 'viewer' });
      assert.equal(alone.status, 422);
      assert.match(alone.text, /last owner/);
      assert.equal(
        (await browser.post(`/dashboard/settings/team/${owner.id}/remove`, {})).status,
        422,
        'the last owner cannot remove themselves',
      );
      assert.equal((await userRow(ownerEmail)).role, 'owner');

      const foreign = await userRow(await dashboardUser(gw, 'viewer', other.id));
      assert.equal(
        (await browser.post(`/dashboard/settings/team/${foreign.id}/remove`, {})).status,
        422,
        "another merchant's user is not on this team",
      );
      assert.equal((await userRow(foreign.email)).role, 'viewer');

      const { browser: member, email: memberEmail } = await signedIn('viewer', team.id);
      const memberRow = await userRow(memberEmail);
      await browser.get(`/dashboard/settings/team/${memberRow.id}/remove`);
      assert.equal(
        (await browser.post(`/dashboard/settings/team/${memberRow.id}/remove`, {})).location,
        '/dashboard/settings?done=removed',
      );
      assert.equal(
        (await member.get('/dashboard/settings')).location,
        '/dashboard/login',
        "removal ends the member's sessions",
      );
      assert.equal(
        (await new DashboardBrowser(gw.url).signIn(memberEmail, DASHBOARD_PASSWORD)).status,
        401,
        'and they cannot sign in again',
      );
      assert.equal((await browser.post(`/dashboard/settings/team/${thoko.id}/remove`, {})).status, 303);
      assert.equal(
        (await invitee.get('/dashboard/settings')).location,
        '/dashboard/login',
        'the member who joined by invitation is removed alike',
      );
      const left = await browser.get('/dashboard/settings');
      assert.ok(
        !left.text.includes(memberEmail) && !left.text.includes('thoko@example.com'),
        'removed members are not listed',
      );
      assert.match(
        (await browser.post('/dashboard/settings/team/invite', { email: 'thoko@example.com', role: 'viewer' })).text,
        /was removed from this team/,
      );
      const actions = (
        await db().selectFrom('audit_log').select('action').where('merchant_id', '=', team.id).execute()
      ).map((row) => row.action);
      assert.ok(actions.includes('user.role_change') && actions.includes('user.remove'));

      const { browser: second } = await signedIn('owner', team.id);
      assert.equal(
        (await second.post(`/dashboard/settings/team/${owner.id}/role`, { role: 'developer' })).status,
        303,
        'with another owner, an owner may be demoted',
      );
    });

    test("inviting an address another merchant's user or an operator has looks to the inviter exactly as inviting a new one: listed, audited, cancellable; only the address is told", async () => {
      // Two teams alike: one invites new addresses, the other addresses with accounts elsewhere.
      const [fresh, taken] = [await gw.newMerchant('Curious <Shop>'), await gw.newMerchant('Curious <Shop>')];
      const [inviter, twin] = [await signedIn('owner', fresh.id), await signedIn('owner', taken.id)];
      const holders = [await dashboardUser(gw, 'developer', other.id), await dashboardUser(gw, 'operator')];
      const newcomers = holders.map((_, round) => `newcomer${round}-${kind}@example.com`);
      const alike = (what: string, answers: [PageAnswer, PageAnswer]) => {
        const [forNew, forTaken] = answers.map((answer, side) => ({
          status: answer.status,
          location: answer.location,
          text: (side === 0 ? newcomers : holders)
            .reduce((text, invitee, round) => text.replaceAll(invitee, `INVITEE${round}`), answer.text)
            .replaceAll(side === 0 ? inviter.email : twin.email, 'OWNER')
            .replace(/(inv|usr|mer)_[A-Za-z0-9]+/g, '$1_ID')
            .replace(/name="csrf" value="[^"]+"/g, 'CSRF')
            .replace(/\d{1,2}:\d{2}/g, 'HH:MM'),
        }));
        assert.deepEqual(forTaken, forNew, `${what} as for a new address`);
      };
      for (const [round, holder] of holders.entries()) {
        const newcomer = newcomers[round]!;
        const invite = (browser: DashboardBrowser, email: string) =>
          browser.post('/dashboard/settings/team/invite', { email, role: 'owner' });
        alike('the invitation', [
          await invite(inviter.browser, newcomer),
          await invite(twin.browser, holder.toUpperCase()),
        ]);
        const pages = async (path: string) =>
          [await inviter.browser.get(path), await twin.browser.get(path)] as [PageAnswer, PageAnswer];
        const teamPages = await pages('/dashboard/settings?done=invited');
        assert.ok(
          teamPages[0].text.includes('The invitation is on its way.') &&
            withoutCellLabels(teamPages[0].text).includes(
              `<td>${newcomer}</td><td>owner</td><td>${inviter.email}</td>`,
            ),
          'listed as invited, with role and inviter',
        );
        alike('the team page', teamPages);
        alike('the audit log', await pages('/dashboard/audit'));
        const cancels = teamPages.map(
          (page) => /href="(\/dashboard\/settings\/team\/invitations\/inv_[A-Za-z0-9]+\/cancel)"/.exec(page.text)![1]!,
        );
        alike('the cancel page', [await inviter.browser.get(cancels[0]!), await twin.browser.get(cancels[1]!)]);
        alike('the cancellation', [
          await inviter.browser.post(cancels[0]!, {}),
          await twin.browser.post(cancels[1]!, {}),
        ]);
        alike('the team page after it', await pages('/dashboard/settings?done=cancelled'));
        alike('the audit log after it', await pages('/dashboard/audit'));

        const holderRow = await userRow(holder);
        assert.notEqual(holderRow.merchant_id, taken.id, 'the holder stays where they were');
        assert.notEqual(holderRow.role, 'owner');
        const mail = await db()
          .selectFrom('emails')
          .selectAll()
          .where('recipient', '=', holder)
          .where('kind', '<>', 'set_password')
          .executeTakeFirstOrThrow();
        assert.equal(mail.kind, 'invitation_refused', 'the address is told why no invitation came');
        assert.match(mail.text_body, /Someone on the Curious <Shop> team tried to invite this address/);
        assert.ok(
          mail.html_body.includes('Curious &lt;Shop&gt;') && !mail.html_body.includes('<Shop>'),
          'the merchant name escaped',
        );
        assert.ok(!mail.text_body.includes('set-password'), 'and sent no link');
      }
      assert.equal(
        (await db().selectFrom('users').select('id').where('merchant_id', '=', taken.id).execute()).length,
        1,
        'no user made: the owner alone',
      );
    });

    test('a member is removed after a confirmation on a page of its own, by those who may manage the team only', async () => {
      const team = await gw.newMerchant('Remove Shop');
      const { browser, email: ownerEmail } = await signedIn('owner', team.id);
      const { browser: member, email: memberEmail } = await signedIn('developer', team.id);
      const target = await userRow(memberEmail);
      const path = `/dashboard/settings/team/${target.id}/remove`;

      const settings = await browser.get('/dashboard/settings');
      assert.ok(
        settings.text.includes(`<a href="${path}" aria-label="Remove ${memberEmail} from the team">Remove</a>`),
        'the team list links to the confirmation',
      );
      assert.ok(!settings.text.includes(`action="${path}"`), 'no one-click removal');

      const confirmation = await browser.get(path);
      assert.equal(confirmation.status, 200);
      assert.match(confirmation.text, /Remove this member from the team\?/);
      assert.ok(
        confirmation.text.includes(`<dt>Email</dt><dd>${memberEmail}</dd><dt>Role</dt><dd>developer</dd>`),
        'who, and with what role',
      );
      assert.match(confirmation.text, /signed out everywhere at once/);
      assert.ok(
        confirmation.text.includes(
          `<form class="confirm" method="post" action="${path}"><input type="hidden" name="csrf"`,
        ),
        'a form with its token',
      );
      assert.match(confirmation.text, /<a class="cancel" href="\/dashboard\/settings">Keep them<\/a>/);
      assert.equal((await userRow(memberEmail)).role, 'developer', 'asking removes nothing');
      assert.equal((await member.get('/dashboard/settings')).status, 200, 'nor signs them out');

      assert.equal((await member.get(path)).status, 403, 'a developer may not manage the team');
      const { browser: stranger } = await signedIn('owner', other.id);
      assert.equal((await stranger.get(path)).status, 404, "another merchant's owner finds no such member");
      assert.equal((await browser.get('/dashboard/settings/team/usr_nobody/remove')).status, 404);
      const self = await browser.get(`/dashboard/settings/team/${(await userRow(ownerEmail)).id}/remove`);
      assert.match(self.text, /Remove yourself from the team\?/);

      assert.equal((await browser.post(path, {}, { csrf: null })).status, 403, 'not without the form token');
      assert.equal((await browser.post(path, {})).location, '/dashboard/settings?done=removed');
      assert.equal((await userRow(memberEmail)).role, 'removed');
      assert.equal((await member.get('/dashboard/settings')).location, '/dashboard/login', 'signed out');
      assert.equal((await browser.get(path)).status, 404, 'a removed member is no longer on the team');
    });

    test('an invitation is cancelled after a confirmation, by those who may manage the team only; its link then stops working', async () => {
      const team = await gw.newMerchant('Cancel Shop');
      const { browser, email: ownerEmail } = await signedIn('owner', team.id);
      await browser.post('/dashboard/settings/team/invite', { email: 'maybe@example.com', role: 'viewer' });
      const token = await invitationToken('maybe@example.com');
      const cancel = /href="(\/dashboard\/settings\/team\/invitations\/(inv_[A-Za-z0-9]+)\/cancel)"/.exec(
        (await browser.get('/dashboard/settings')).text,
      )!;
      const [, path, id] = cancel;
      const confirmation = await browser.get(path!);
      assert.equal(confirmation.status, 200);
      assert.match(confirmation.text, /Cancel this invitation\?/);
      assert.match(
        confirmation.text,
        /<dd>maybe@example.com<\/dd><dt>Role<\/dt><dd>viewer<\/dd><dt>Invited by<\/dt><dd>[^<]+<\/dd>/,
      );
      assert.ok(
        confirmation.text.includes(
          `<form class="confirm" method="post" action="${path}"><input type="hidden" name="csrf"`,
        ),
        'a form with its token',
      );

      for (const role of ['developer', 'viewer'] as const) {
        const { browser: member } = await signedIn(role, team.id);
        assert.ok(
          !(await member.get('/dashboard/settings')).text.includes(path!),
          `${role}: listed without a way to cancel`,
        );
        assert.equal((await member.get(path!)).status, 403, role);
        assert.equal((await member.post(path!, {})).status, 403, role);
      }
      const { browser: stranger } = await signedIn('owner', other.id);
      assert.equal((await stranger.get(path!)).status, 404, "another merchant's owner");
      assert.equal((await stranger.post(path!, {})).status, 422);
      assert.equal((await browser.post(path!, {}, { csrf: null })).status, 403, 'not without the form token');
      assert.equal((await invitationRow(id!)).status, 'pending');

      assert.equal((await browser.post(path!, {})).location, '/dashboard/settings?done=cancelled');
      const after = await browser.get('/dashboard/settings?done=cancelled');
      assert.ok(after.text.includes('The invitation is cancelled') && !after.text.includes('maybe@example.com'));
      assert.equal(
        (await fetch(`${gw.url}/dashboard/set-password?token=${token}`)).status,
        404,
        'the link no longer works',
      );
      const [entry] = await db()
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.invitation_cancel')
        .where('subject', '=', id!)
        .execute();
      assert.equal(entry!.user_id, (await userRow(ownerEmail)).id);
      assert.match((await browser.post(path!, {})).text, /No such invitation/, 'once');
      assert.equal((await browser.get(path!)).status, 404);
      assert.equal(
        (await browser.post('/dashboard/settings/team/invite', { email: 'maybe@example.com', role: 'viewer' }))
          .location,
        '/dashboard/settings?done=invited',
        'the address can be invited again',
      );
    });

    test('an address two teams invited joins the one whose link it uses first; the other link then says the address has an account', async () => {
      const [first, second] = [await gw.newMerchant('First Shop'), await gw.newMerchant('Second Shop')];
      for (const team of [first, second])
        await (
          await signedIn('owner', team.id)
        ).browser.post('/dashboard/settings/team/invite', { email: 'popular@example.com', role: 'viewer' });
      const mails = await db()
        .selectFrom('emails')
        .select('text_body')
        .where('recipient', '=', 'popular@example.com')
        .where('kind', '=', 'set_password')
        .orderBy('created_at')
        .execute();
      const [firstToken, secondToken] = mails.map((mail) => LINK.exec(mail.text_body)![1]!);
      const invitee = new DashboardBrowser(gw.url);
      await invitee.get(`/dashboard/set-password?token=${secondToken}`);
      assert.equal(
        (
          await invitee.post('/dashboard/set-password', {
            token: secondToken!,
            password: DASHBOARD_PASSWORD,
            confirm: DASHBOARD_PASSWORD,
          })
        ).location,
        '/dashboard/login?password_set=1',
      );
      assert.equal((await userRow('popular@example.com')).merchant_id, second.id);
      await invitee.get(`/dashboard/set-password?token=${firstToken}`);
      const refused = await invitee.post('/dashboard/set-password', {
        token: firstToken!,
        password: DASHBOARD_PASSWORD,
        confirm: DASHBOARD_PASSWORD,
      });
      assert.equal(refused.status, 422);
      assert.match(refused.text, /popular@example.com already has a dashboard account: sign in with it\./);
      assert.equal((await userRow('popular@example.com')).merchant_id, second.id, 'still on the team it joined');
      const open = await db()
        .selectFrom('invitations')
        .select('status')
        .where('merchant_id', '=', first.id)
        .executeTakeFirstOrThrow();
      assert.equal(open.status, 'pending', 'the other invitation stays open until it expires or is cancelled');
    });

    test('an invitation expires with its link: no longer listed nor usable, and the address can be invited again', async () => {
      const team = await gw.newMerchant('Slow Shop');
      const { browser } = await signedIn('owner', team.id);
      await browser.post('/dashboard/settings/team/invite', { email: 'later@example.com', role: 'developer' });
      const token = await invitationToken('later@example.com');
      const row = await db()
        .selectFrom('invitations')
        .selectAll()
        .where('merchant_id', '=', team.id)
        .executeTakeFirstOrThrow();
      assert.ok(Math.abs(row.expires_at - row.created_at - 24 * 3_600_000) < 1_000, 'as long as a set-password link');
      await db()
        .updateTable('invitations')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', row.id)
        .execute();
      assert.ok(!(await browser.get('/dashboard/settings')).text.includes('later@example.com'));
      const invitee = new DashboardBrowser(gw.url);
      assert.equal((await invitee.get(`/dashboard/set-password?token=${token}`)).status, 404);
      assert.equal(
        (
          await invitee.post(
            '/dashboard/set-password',
            { token, password: DASHBOARD_PASSWORD, confirm: DASHBOARD_PASSWORD },
            { csrf: null },
          )
        ).status,
        403,
      );
      assert.equal(
        (await browser.post(`/dashboard/settings/team/invitations/${row.id}/cancel`, {})).status,
        422,
        'nothing left to cancel',
      );
      assert.equal(
        (await browser.post('/dashboard/settings/team/invite', { email: 'later@example.com', role: 'developer' }))
          .location,
        '/dashboard/settings?done=invited',
      );
    });

    test('a change is audited with the fields it changed only; a form sent again unchanged writes no entry and says nothing changed', async () => {
      const shop = await gw.newMerchant('Same Shop');
      const { browser } = await signedIn('owner', shop.id);
      const entries = async (action: string) =>
        (
          await db()
            .selectFrom('audit_log')
            .select('detail')
            .where('merchant_id', '=', shop.id)
            .where('action', '=', action)
            .execute()
        ).map((row) => JSON.parse(row.detail ?? 'null'));
      const saysUnchanged = async (location: string | null) =>
        assert.match((await browser.get(location!)).text, /<p class="notice" role="status">Nothing changed/);

      const business = { name: 'Same Shop', logo_url: '', brand_color: '#1a7f5a', receipts: 'on' };
      assert.equal((await browser.post('/dashboard/settings', business)).location, '/dashboard/settings?done=settings');
      assert.deepEqual(
        await entries('merchant.settings'),
        [{ brand_color: { from: '', to: '#1a7f5a' } }],
        'the brand colour alone changed',
      );
      const again = await browser.post('/dashboard/settings', { ...business, brand_color: '#1A7F5A ' });
      assert.equal(again.location, '/dashboard/settings?done=unchanged');
      await saysUnchanged(again.location);
      assert.equal((await entries('merchant.settings')).length, 1, 'no entry for the same settings');

      const url = 'https://hooks.example.com/lipira';
      assert.equal(
        (await browser.post('/dashboard/developers/webhook', { url })).location,
        '/dashboard/developers?done=url',
      );
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
      const fee = String(
        (await db().selectFrom('merchants').select('fee_bps').where('id', '=', shop.id).executeTakeFirstOrThrow())
          .fee_bps / 100,
      );
      const sameFee = await operator.post(`${fees}/fees`, { fee_percent: fee });
      assert.equal(sameFee.location, `${fees}?saved=unchanged`);
      assert.match((await operator.get(sameFee.location!)).text, /<p class="notice" role="status">Nothing changed/);
      assert.deepEqual(await entries('merchant.fees'), []);
    });

    test('a notice asked for by a name every object has (constructor, __proto__) shows no notice, and no error page', async () => {
      const { browser } = await signedIn('owner');
      const operator = new DashboardBrowser(gw.url);
      await operator.signIn(await dashboardUser(gw, 'operator'), DASHBOARD_PASSWORD);
      for (const name of ['constructor', '__proto__', 'toString']) {
        for (const [who, path] of [
          [browser, `/dashboard/settings?done=${name}`],
          [browser, `/dashboard/developers?done=${name}`],
          [operator, `/dashboard/operator/merchants/${merchant.id}?saved=${name}`],
        ] as const) {
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
        assert.ok(
          !page.text.includes('action="/dashboard/settings"') && !page.text.includes('/dashboard/settings/team/'),
          `${role}: no forms`,
        );
        assert.ok(page.text.includes('/dashboard/settings/two-factor'));
        assert.equal((await browser.post('/dashboard/settings', { name: 'Taken', receipts: 'on' })).status, 403);
        assert.equal(
          (await browser.post('/dashboard/settings/team/invite', { email: 'x@example.com', role: 'owner' })).status,
          403,
        );
      }
      assert.equal((await merchantRow()).name, 'Chikondi Crafts');
    });

    test("the audit log lists this merchant's entries only, newest first, with who did them, in pages", async () => {
      const { browser, email } = await signedIn('owner');
      const { browser: stranger } = await signedIn('owner', other.id);
      await stranger.post('/dashboard/settings', { name: 'Other Shop Renamed', logo_url: '', brand_color: '' });
      await browser.post('/dashboard/settings', {
        name: 'Chikondi Crafts',
        logo_url: '',
        brand_color: '#000000',
        receipts: 'on',
      });
      const log = await browser.get('/dashboard/audit');
      assert.equal(log.status, 200);
      assert.ok(log.text.includes('Changed the settings') && log.text.includes('Added a team member'));
      assert.ok(withoutCellLabels(log.text).includes(`<td>${email}</td><td>Changed the settings</td>`), 'who did it');
      assert.ok(!log.text.includes('Other Shop Renamed'), "not another merchant's entries");
      assert.match(log.text, /CAT|Africa\/Blantyre/, 'times in the gateway time zone');
      const rows = [...withoutCellLabels(log.text).matchAll(/<tr><td>([^<]+)<\/td>/g)];
      assert.ok(rows.length > 3);
      const first = log.text.indexOf('Changed the settings');
      assert.ok(
        log.text.indexOf('Added a team member') > first || log.text.lastIndexOf('Changed the settings') > first,
        'newest first',
      );

      const now = Date.now();
      await db()
        .insertInto('audit_log')
        .values(
          Array.from({ length: 60 }, (_, n) => ({
            id: `aud_page${String(n).padStart(3, '0')}`,
            merchant_id: merchant.id,
            user_id: null,
            action: 'key.roll',
            subject: `key_${n}`,
            detail: null,
            created_at: now + 1000 + n,
          })),
        )
        .execute();
      const newest = await browser.get('/dashboard/audit');
      assert.ok(
        newest.text.includes('key_59') && !newest.text.includes('key_9<') && newest.text.includes('command line'),
      );
      const next = /href="(\/dashboard\/audit\?after=[^"]+)"/.exec(newest.text)![1]!;
      const older = await browser.get(next.replaceAll('&amp;', '&'));
      assert.ok(older.text.includes('<code>key_9</code>') && !older.text.includes('<code>key_59</code>'));
      assert.equal((await browser.get('/dashboard/audit?after=%00garbage')).status, 200, 'a bad cursor is ignored');
    });
  });
}
