import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, totpCode, type PageAnswer } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { AccountEmailKind } from '../../src/db/schema.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { formatHumanDate } from '../../src/shared/time.ts';
import { recordSignIn } from '../../src/users/sign-in-history.ts';
import { newTotpSecret } from '../../src/users/totp.ts';
import { enableTwoFactor } from '../../src/users/user-service.ts';

const LINK = /\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43})/;
const REFUSED = /The email or password is wrong, or the account is locked for a while after too many failed tries\./;
const CHROME_ON_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const TIME_ZONE = 'Africa/Blantyre';

/**
 * Account safety over real HTTP: owners and the operator reset a member's two-factor sign-in or
 * password (each after a confirmation page of its own; audited, emailed, the member signed out),
 * within their reach only; every sign-in is recorded with its address and browser, shown on the
 * user's account page, and a browser new to the user is emailed about once.
 */
for (const kind of DATABASE_KINDS) {
  describe(`dashboard account safety (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let other: MerchantCredentials;

    before(async () => {
      gw = await startTestGateway(kind, { CLIENT_ADDRESS_HEADER: 'x-forwarded-for', TIMEZONE: TIME_ZONE });
      merchant = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
    });
    after(() => gw.close());

    const db = () => gw.gateway.database.db;
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const auditOf = (action: string, subject: string) =>
      db().selectFrom('audit_log').selectAll().where('action', '=', action).where('subject', '=', subject).execute();
    const emailsTo = (recipient: string, kindOf: AccountEmailKind) =>
      db()
        .selectFrom('emails')
        .selectAll()
        .where('recipient', '=', recipient)
        .where('kind', '=', kindOf)
        .orderBy('created_at')
        .execute();
    const auditCount = async () =>
      Number(
        (
          await db()
            .selectFrom('audit_log')
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      );

    /** A browser signed in as `email`, answering with `headers` (an address, a User-Agent). */
    async function signedIn(
      email: string,
      options: { code?: string; headers?: Record<string, string> } = {},
    ): Promise<DashboardBrowser> {
      const browser = new DashboardBrowser(gw.url);
      assert.equal((await signIn(browser, email, options)).location, '/dashboard');
      return browser;
    }

    /** Signs in from the sign-in page (and the code step, with a code); the last answer. */
    async function signIn(
      browser: DashboardBrowser,
      email: string,
      {
        code,
        headers = {},
        password = DASHBOARD_PASSWORD,
      }: { code?: string; headers?: Record<string, string>; password?: string } = {},
    ): Promise<PageAnswer> {
      await browser.get('/dashboard/login');
      const answer = await browser.post('/dashboard/login', { email, password }, { headers });
      if (answer.location !== '/dashboard/login' || code === undefined) return answer;
      await browser.get('/dashboard/login');
      return browser.post('/dashboard/login', { code }, { headers });
    }

    /** Turns two-factor sign-in on for the user, as its enrolment does; the secret. */
    async function withTwoFactor(email: string): Promise<string> {
      const secret = newTotpSecret();
      const now = gw.gateway.clock.now();
      assert.ok(await enableTwoFactor(db(), await userRow(email), secret, totpCode(secret, 0, now), now));
      return secret;
    }

    const isSignedIn = async (browser: DashboardBrowser) => (await browser.get('/dashboard')).status === 200;

    test("an owner resets a member's two-factor sign-in from a confirmation page of its own: off, the member signed out, audited, emailed; their next sign-in takes the password alone and goes to set it up again, once", async () => {
      const ownerEmail = await dashboardUser(gw, 'owner', merchant.id);
      const owner = await signedIn(ownerEmail);
      const memberEmail = await dashboardUser(gw, 'developer', merchant.id);
      const secret = await withTwoFactor(memberEmail);
      const member = await signedIn(memberEmail, { code: totpCode(secret, 1) });
      const { id } = await userRow(memberEmail);
      const path = `/dashboard/settings/team/${id}/reset-two-factor`;

      const settings = await owner.get('/dashboard/settings');
      assert.ok(settings.text.includes(`href="${path}"`), 'the team list links to the confirmation page');
      assert.ok(!settings.text.includes(`action="${path}"`), 'and holds no form that resets at one click');
      const confirm = await owner.get(path);
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, new RegExp(`<h1>Reset the two-factor sign-in of ${memberEmail}\\?</h1>`));
      assert.ok(confirm.text.includes(`<form class="inline" method="post" action="${path}">`), 'it posts to itself');
      assert.ok(await isSignedIn(member), 'nothing happens until the confirmation is posted');
      assert.notEqual((await userRow(memberEmail)).totp_secret, null);

      const done = await owner.post(path, {});
      assert.equal(done.location, '/dashboard/settings?done=two_factor_reset');
      assert.match((await owner.get(done.location!)).text, /Two-factor sign-in is reset/);
      const row = await userRow(memberEmail);
      assert.equal(row.totp_secret, null);
      assert.equal(row.two_factor_reset_at !== null, true);
      assert.equal(await isSignedIn(member), false, "the member's session has ended");
      const [entry] = await auditOf('user.two_factor_reset', id);
      assert.equal(entry?.user_id, (await userRow(ownerEmail)).id, "audited as the owner's doing");
      assert.deepEqual(JSON.parse(entry!.detail!), { email: memberEmail, sessions_ended: 1 });
      const [mail] = await emailsTo(memberEmail, 'two_factor_reset_notice');
      assert.ok(mail, 'the member is emailed');
      assert.equal(mail.merchant_id, merchant.id);
      assert.match(mail.subject, /Two-factor sign-in for the Chikondi Crafts dashboard was turned off/);
      assert.match(mail.text_body, new RegExp(`${ownerEmail}, an owner of Chikondi Crafts, turned off two-factor`));

      const again = await owner.post(path, {});
      assert.equal(again.status, 422);
      assert.match(again.text, /has two-factor sign-in off already/);
      assert.equal((await owner.get(path)).status, 422, 'nor is its confirmation page offered');

      const next = new DashboardBrowser(gw.url);
      assert.equal(
        (await signIn(next, memberEmail)).location,
        '/dashboard/settings/two-factor',
        'the password alone, then the two-factor setup',
      );
      assert.equal((await userRow(memberEmail)).two_factor_reset_at, null);
      assert.equal((await signIn(new DashboardBrowser(gw.url), memberEmail)).location, '/dashboard', 'only once');
    });

    test("an owner resets a member's password: the old one stops working at once, the member is signed out and emailed a link that sets a new one; audited", async () => {
      const ownerEmail = await dashboardUser(gw, 'owner', merchant.id);
      const owner = await signedIn(ownerEmail);
      const memberEmail = await dashboardUser(gw, 'viewer', merchant.id);
      const laptop = await signedIn(memberEmail);
      const phone = await signedIn(memberEmail);
      const { id } = await userRow(memberEmail);
      const path = `/dashboard/settings/team/${id}/reset-password`;

      const confirm = await owner.get(path);
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, new RegExp(`<h1>Reset the password of ${memberEmail}\\?</h1>`));
      assert.equal(await isSignedIn(laptop), true);
      const done = await owner.post(path, {});
      assert.equal(done.location, '/dashboard/settings?done=password_reset');
      assert.equal(await isSignedIn(laptop), false);
      assert.equal(await isSignedIn(phone), false);
      const [entry] = await auditOf('user.password_reset_by_other', id);
      assert.equal(entry?.user_id, (await userRow(ownerEmail)).id);
      assert.deepEqual(JSON.parse(entry!.detail!), { email: memberEmail, sessions_ended: 2 });

      const refused = await signIn(new DashboardBrowser(gw.url), memberEmail);
      assert.equal(refused.status, 401, 'the old password no longer works');
      assert.match(refused.text, REFUSED);
      const [mail] = await emailsTo(memberEmail, 'password_reset_notice');
      assert.match(mail!.text_body, /reset your password for the Chikondi Crafts payments dashboard/);
      assert.match(mail!.text_body, /Your old password no longer works/);
      const token = LINK.exec(mail!.text_body)![1]!;
      const newPassword = 'a brand new passphrase for the shop';
      const linkBrowser = new DashboardBrowser(gw.url);
      assert.equal((await linkBrowser.get(`/dashboard/set-password?token=${token}`)).status, 200);
      const chosen = await linkBrowser.post('/dashboard/set-password', {
        token,
        password: newPassword,
        confirm: newPassword,
      });
      assert.equal(chosen.location, '/dashboard/login?password_set=1');
      assert.equal(
        (await signIn(new DashboardBrowser(gw.url), memberEmail, { password: newPassword })).location,
        '/dashboard',
      );
      const settings = await owner.get('/dashboard/settings');
      assert.ok(!settings.text.includes(`${memberEmail} <span class="muted">no password yet`));
    });

    test('through the team page an owner resets no one but their own team’s members: not themself, an operator, another merchant’s user or a removed member; a developer resets no one', async () => {
      const ownerEmail = await dashboardUser(gw, 'owner', merchant.id);
      const owner = await signedIn(ownerEmail);
      const ownerRow = await userRow(ownerEmail);
      const operatorRow = await userRow(await dashboardUser(gw, 'operator'));
      const strangerRow = await userRow(await dashboardUser(gw, 'owner', other.id));
      const removedEmail = await dashboardUser(gw, 'viewer', merchant.id);
      assert.equal(
        (await owner.post(`/dashboard/settings/team/${(await userRow(removedEmail)).id}/remove`, {})).location,
        '/dashboard/settings?done=removed',
      );
      const removedRow = await userRow(removedEmail);
      const settings = await owner.get('/dashboard/settings');
      assert.ok(!settings.text.includes(`/team/${ownerRow.id}/reset-`), 'no reset of oneself is offered');
      const before = await auditCount();
      for (const [target, message] of [
        [ownerRow, /This is your own account/],
        [operatorRow, /No such team member\./],
        [strangerRow, /No such team member\./],
        [removedRow, /No such team member\./],
      ] as const) {
        for (const reset of ['reset-password', 'reset-two-factor']) {
          const path = `/dashboard/settings/team/${target.id}/${reset}`;
          const page = await owner.get(path);
          assert.equal(page.status, 422, `GET ${path}`);
          assert.match(page.text, message);
          const posted = await owner.post(path, {});
          assert.equal(posted.status, 422, `POST ${path}`);
          assert.match(posted.text, message);
        }
        const after = await userRow(target.email);
        assert.deepEqual([after.password_hash, after.updated_at], [target.password_hash, target.updated_at]);
      }
      assert.equal(await auditCount(), before, 'nothing audited, as nothing changed');
      assert.equal((await emailsTo(operatorRow.email, 'password_reset_notice')).length, 0);
      assert.ok(await isSignedIn(owner), 'the owner is still signed in');

      const developer = await signedIn(await dashboardUser(gw, 'developer', merchant.id));
      const memberRow = await userRow(await dashboardUser(gw, 'viewer', merchant.id));
      assert.equal((await developer.get(`/dashboard/settings/team/${memberRow.id}/reset-password`)).status, 403);
      assert.equal((await developer.post(`/dashboard/settings/team/${memberRow.id}/reset-password`, {})).status, 403);
      assert.equal((await userRow(memberRow.email)).password_hash, memberRow.password_hash);
    });

    test("the operator resets any merchant's user from that merchant's page, after a confirmation; not an operator, nor another merchant's user through it; an owner cannot open it", async () => {
      const operatorEmail = await dashboardUser(gw, 'operator');
      const operator = await signedIn(operatorEmail);
      const operatorId = (await userRow(operatorEmail)).id;
      const memberEmail = await dashboardUser(gw, 'owner', other.id);
      const secret = await withTwoFactor(memberEmail);
      const member = await signedIn(memberEmail, { code: totpCode(secret, 1) });
      const { id } = await userRow(memberEmail);
      const base = `/dashboard/operator/merchants/${other.id}/users/${id}`;

      const page = await operator.get(`/dashboard/operator/merchants/${other.id}`);
      assert.ok(
        page.text.includes(`href="${base}/reset-two-factor"`) && page.text.includes(`href="${base}/reset-password"`),
      );
      const confirm = await operator.get(`${base}/reset-two-factor`);
      assert.equal(confirm.status, 200);
      assert.ok(confirm.text.includes(`action="${base}/reset-two-factor"`));
      const done = await operator.post(`${base}/reset-two-factor`, {});
      assert.equal(done.location, `/dashboard/operator/merchants/${other.id}?saved=two_factor_reset`);
      assert.equal((await userRow(memberEmail)).totp_secret, null);
      assert.equal(await isSignedIn(member), false);
      const [twoFactorEntry] = await auditOf('user.two_factor_reset', id);
      assert.deepEqual([twoFactorEntry?.user_id, twoFactorEntry?.merchant_id], [operatorId, other.id]);
      const [twoFactorMail] = await emailsTo(memberEmail, 'two_factor_reset_notice');
      assert.match(twoFactorMail!.text_body, /The gateway’s operator turned off two-factor sign-in/);

      assert.equal((await operator.get(`${base}/reset-password`)).status, 200);
      assert.equal(
        (await operator.post(`${base}/reset-password`, {})).location,
        `/dashboard/operator/merchants/${other.id}?saved=password_reset`,
      );
      assert.equal((await userRow(memberEmail)).password_hash, null);
      const [passwordEntry] = await auditOf('user.password_reset_by_other', id);
      assert.equal(passwordEntry?.user_id, operatorId);
      assert.match((await emailsTo(memberEmail, 'password_reset_notice'))[0]!.text_body, LINK);

      const anotherOperator = await userRow(await dashboardUser(gw, 'operator'));
      const stranger = await userRow(await dashboardUser(gw, 'viewer', merchant.id));
      for (const target of [anotherOperator, stranger]) {
        const path = `/dashboard/operator/merchants/${other.id}/users/${target.id}/reset-password`;
        assert.equal((await operator.get(path)).status, 422);
        const refused = await operator.post(path, {});
        assert.equal(refused.status, 422);
        assert.match(refused.text, /No such team member\./);
        assert.equal((await userRow(target.email)).password_hash, target.password_hash);
      }
      assert.equal(
        (await operator.get(`/dashboard/operator/merchants/${operatorId}/users/${id}/reset-password`)).status,
        404,
      );

      const owner = await signedIn(await dashboardUser(gw, 'owner', other.id));
      assert.equal((await owner.get(`${base}/reset-password`)).status, 403);
      assert.equal((await owner.post(`${base}/reset-password`, {})).status, 403);
    });

    test('each sign-in is recorded with its client address and browser and listed on the account page in the gateway’s time zone; a browser new to the user is emailed about once, a known one never', async () => {
      const email = await dashboardUser(gw, 'developer', merchant.id);
      const phoneHeaders = { 'x-forwarded-for': '198.51.100.7', 'user-agent': CHROME_ON_ANDROID };
      const phone = new DashboardBrowser(gw.url);
      assert.equal((await signIn(phone, email, { headers: phoneHeaders })).location, '/dashboard');
      const cookie = phone.setCookies.find((header) => header.startsWith('lipira_browser='));
      assert.ok(cookie, 'the browser is given its cookie');
      assert.match(cookie, /; Path=\/dashboard; Max-Age=34560000; HttpOnly; SameSite=Lax$/);
      const token = phone.cookies.get('lipira_browser')!;
      const { id } = await userRow(email);
      const rows = () =>
        db().selectFrom('sign_ins').selectAll().where('user_id', '=', id).orderBy('created_at').orderBy('id').execute();
      const [first] = await rows();
      assert.deepEqual(
        [first?.address, first?.browser, first?.browser_hash],
        ['198.51.100.7', 'Chrome on Android', createHash('sha256').update(token).digest('hex')],
        'the address, the browser by name, and only a hash of its token',
      );
      assert.equal((await emailsTo(email, 'new_browser_sign_in')).length, 0, 'the first sign-in of all is no news');

      await phone.post('/dashboard/logout', {});
      assert.equal((await signIn(phone, email, { headers: phoneHeaders })).location, '/dashboard');
      assert.equal(phone.cookies.get('lipira_browser'), token, 'a known browser keeps its token');
      assert.equal((await emailsTo(email, 'new_browser_sign_in')).length, 0, 'a known browser is no news');

      const laptopHeaders = { 'x-forwarded-for': '203.0.113.9', 'user-agent': FIREFOX_ON_WINDOWS };
      const laptop = new DashboardBrowser(gw.url);
      assert.equal((await signIn(laptop, email, { headers: laptopHeaders })).location, '/dashboard');
      const mails = await emailsTo(email, 'new_browser_sign_in');
      assert.equal(mails.length, 1, 'a new browser is emailed about');
      const newest = (await rows()).at(-1)!;
      assert.deepEqual([newest.address, newest.browser], ['203.0.113.9', 'Firefox on Windows']);
      assert.match(mails[0]!.subject, /A sign-in to the Chikondi Crafts dashboard from a new browser/);
      assert.ok(
        mails[0]!.text_body.includes(
          `When: ${formatHumanDate(newest.created_at, TIME_ZONE)}. Address: 203.0.113.9. Browser: Firefox on Windows.`,
        ),
        mails[0]!.text_body,
      );
      assert.match(mails[0]!.text_body, /If it was not, someone knows your password/);
      await laptop.post('/dashboard/logout', {});
      await signIn(laptop, email, { headers: laptopHeaders });
      assert.equal((await emailsTo(email, 'new_browser_sign_in')).length, 1, 'once per browser');

      const page = await phone.get('/dashboard/account');
      assert.equal(page.status, 200);
      assert.match(page.text, /<a href="\/dashboard\/account" aria-current="page">Your account<\/a>/);
      const listed = [
        ...page.text.matchAll(
          /<tr><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+?)( <span class="muted">\(this browser\)<\/span>)?<\/td><\/tr>/g,
        ),
      ].map((match) => [match[1], match[2], match[3], match[4] !== undefined]);
      const history = (await rows()).reverse();
      assert.deepEqual(
        listed,
        history.map((row) => [
          formatHumanDate(row.created_at, TIME_ZONE),
          row.address,
          row.browser,
          row.browser_hash === first!.browser_hash,
        ]),
        'newest first, with this browser marked',
      );
      assert.match(page.text, /times are in Africa\/Blantyre/);
    });

    test('the history keeps a user’s newest 100 sign-ins; the account page shows the last 20', async () => {
      const email = await dashboardUser(gw, 'viewer', merchant.id);
      const user = await userRow(email);
      const start = gw.gateway.clock.now();
      for (let i = 0; i < 104; i++)
        await recordSignIn(
          db(),
          { publicBaseUrl: gw.url, timeZone: TIME_ZONE },
          user,
          { address: `192.0.2.${i}`, userAgent: FIREFOX_ON_WINDOWS, browserToken: null },
          start + i,
        );
      const kept = await db()
        .selectFrom('sign_ins')
        .select('address')
        .where('user_id', '=', user.id)
        .orderBy('created_at')
        .execute();
      assert.equal(kept.length, 100);
      assert.equal(kept[0]!.address, '192.0.2.4', 'the oldest went first');
      const page = await (await signedIn(email)).get('/dashboard/account');
      assert.equal([...page.text.matchAll(/<tr><td>/g)].length, 20);
    });
  });
}
