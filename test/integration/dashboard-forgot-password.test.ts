import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fakeClock } from '../helpers/clock.ts';
import { DashboardBrowser, type PageAnswer } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { changeTeamMember } from '../../src/users/user-service.ts';

/** An instant far from today, so that nothing can pass for reading the system's time. */
const START = Date.UTC(2031, 5, 1, 9, 0, 0);
const NEW_PASSWORD = 'another quite long passphrase';
const LINK = /(http:\/\/\S+\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43}))/;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard: forgot your password? (${kind})`, () => {
    const clock = fakeClock(START);
    // Behind a proxy, so that each test asks from a client address of its own.
    const ctx = useTestGateway(kind, { CLIENT_ADDRESS_HEADER: 'x-forwarded-for' }, clock);
    let addresses = 0;

    const db = () => ctx.gw.gateway.database.db;
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const resetEmails = (email: string) =>
      db()
        .selectFrom('emails')
        .selectAll()
        .where('recipient', '=', email)
        .where('kind', '=', 'password_reset')
        .orderBy('created_at')
        .execute();
    const auditActions = async (userId: string) =>
      (
        await db()
          .selectFrom('audit_log')
          .select(['action', 'detail'])
          .where('subject', '=', userId)
          .orderBy('created_at')
          .execute()
      ).filter((entry) => entry.action.startsWith('user.password_reset'));

    /** A browser asking from a client address of its own, through the page's own form. */
    function asker() {
      const from = `203.0.113.${++addresses}`;
      const browser = new DashboardBrowser(ctx.gw.url);
      return {
        browser,
        async ask(email: string): Promise<PageAnswer> {
          await browser.get('/dashboard/forgot-password');
          return browser.post('/dashboard/forgot-password', { email }, { headers: { 'x-forwarded-for': from } });
        },
      };
    }

    /** Asks for a link for `email` and waits for its email in the outbox; the link's token. */
    async function resetLink(email: string): Promise<string> {
      const before = (await resetEmails(email)).length;
      assert.equal((await asker().ask(email)).location, '/dashboard/forgot-password?sent=1');
      const mail = await eventually('the reset email in the outbox', async () => {
        const mails = await resetEmails(email);
        return mails.length > before && mails.at(-1);
      });
      return LINK.exec(mail.text_body)![2]!;
    }

    test('the sign-in page leads to the form; an unknown and a known address get the same answer, and only the known one an email with a link', async () => {
      clock.set(START);
      const browser = new DashboardBrowser(ctx.gw.url);
      assert.match(
        (await browser.get('/dashboard/login')).text,
        /<a href="\/dashboard\/forgot-password">Forgot your password\?<\/a>/,
      );
      const form = await browser.get('/dashboard/forgot-password');
      assert.equal(form.status, 200);
      assert.match(form.text, /<label>Email<input type="email" name="email"/);

      const known = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
      const unknown = `nobody-${kind}@example.com`;
      const { ask } = asker();
      const answers = [await ask(unknown), await ask(known.toUpperCase())];
      for (const answer of answers) {
        assert.equal(answer.status, 303);
        assert.equal(answer.location, '/dashboard/forgot-password?sent=1');
        assert.equal(answer.text, '');
      }
      const sent = await browser.get(answers[0]!.location!);
      assert.equal(sent.status, 200);
      assert.match(sent.text, /If the address you typed has a dashboard account, an email with a link/);

      const [mail] = await eventually('the reset email', async () => {
        const mails = await resetEmails(known);
        return mails.length > 0 && mails;
      });
      assert.equal(mail!.merchant_id, ctx.merchant.id);
      assert.equal(mail!.status, 'pending', 'queued in the outbox for the email worker');
      assert.match(mail!.subject, /Reset your password for the Test Shop dashboard/);
      assert.match(mail!.text_body, /within 30 minutes; it works once/);
      assert.match(mail!.text_body, LINK);
      assert.ok(mail!.html_body.includes(LINK.exec(mail!.text_body)![1]!.replaceAll('&', '&amp;')));
      assert.deepEqual(
        await db().selectFrom('emails').select('id').where('recipient', '=', unknown).execute(),
        [],
        'nothing is sent to an address without an account',
      );
      const link = await db()
        .selectFrom('password_links')
        .selectAll()
        .where('user_id', '=', (await userRow(known)).id)
        .executeTakeFirstOrThrow();
      assert.equal(link.purpose, 'reset');
      assert.equal(link.expires_at, START + 30 * 60_000, 'valid for 30 minutes of business time');
      assert.ok(!mail!.text_body.includes(link.id), 'the database holds only the hash of the link’s token');
      assert.deepEqual(
        (await auditActions((await userRow(known)).id)).map((entry) => entry.action),
        ['user.password_reset_request'],
      );
    });

    test('text that is no address is asked for again, with what was typed', async () => {
      const { ask } = asker();
      const answer = await ask('not an address');
      assert.equal(answer.status, 422);
      assert.match(answer.text, /Type the email address you sign in with/);
      assert.match(answer.text, /value="not an address"/, 'what was typed is kept');
    });

    test('the link sets a new password once, signs every session out, lifts a lock and is audited', async () => {
      clock.set(START);
      const email = await dashboardUser(ctx.gw, 'developer', ctx.merchant.id);
      const laptop = new DashboardBrowser(ctx.gw.url);
      const phone = new DashboardBrowser(ctx.gw.url);
      assert.equal((await laptop.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard');
      assert.equal((await phone.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard');
      const { id } = await userRow(email);
      await db()
        .updateTable('users')
        .set({ locked_until: START + 10 * 60_000 })
        .where('id', '=', id)
        .execute();

      const token = await resetLink(email);
      const visitor = new DashboardBrowser(ctx.gw.url);
      const page = await visitor.get(`/dashboard/set-password?token=${token}`);
      assert.equal(page.status, 200);
      assert.match(page.text, /<h1>Choose a new password<\/h1>/);
      assert.match(page.text, /Every browser signed in to this account will be signed out/);
      const weak = await visitor.post('/dashboard/set-password', { token, password: 'short', confirm: 'short' });
      assert.equal(weak.status, 422, 'the password rules of every password hold');
      assert.match(weak.text, /at least 12 characters/);
      const set = await visitor.post('/dashboard/set-password', {
        token,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.equal(set.location, '/dashboard/login?password_set=1');

      assert.equal((await laptop.get('/dashboard')).location, '/dashboard/login', 'the laptop is signed out');
      assert.equal((await phone.get('/dashboard')).location, '/dashboard/login', 'the phone is signed out');
      assert.deepEqual(await db().selectFrom('user_sessions').select('id').where('user_id', '=', id).execute(), []);

      const again = await visitor.post('/dashboard/set-password', {
        token,
        password: 'yet another long passphrase',
        confirm: 'yet another long passphrase',
      });
      assert.equal(again.status, 404, 'the link works once');
      assert.match(again.text, /This link no longer works/);
      assert.match(again.text, /href="\/dashboard\/forgot-password"/, 'and says where to ask for a new one');
      assert.equal((await visitor.get(`/dashboard/set-password?token=${token}`)).status, 404);

      assert.equal((await visitor.signIn(email, DASHBOARD_PASSWORD)).status, 401, 'the old password is refused');
      assert.equal((await visitor.signIn(email, NEW_PASSWORD)).location, '/dashboard', 'the new one works, unlocked');
      const audit = await auditActions(id);
      assert.deepEqual(
        audit.map((entry) => entry.action),
        ['user.password_reset_request', 'user.password_reset'],
      );
      assert.deepEqual(JSON.parse(audit[1]!.detail!), { sessions_ended: 2 });
    });

    test('a link runs out 30 minutes after it was asked for, by the clock, and a newer password voids every older link', async () => {
      clock.set(START);
      const email = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
      const first = await resetLink(email);
      const open = (token: string) => new DashboardBrowser(ctx.gw.url).get(`/dashboard/set-password?token=${token}`);
      clock.advance(29 * 60_000);
      assert.equal((await open(first)).status, 200, '29 minutes on: still works');
      clock.advance(60_000);
      const expired = await open(first);
      assert.equal(expired.status, 404, '30 minutes on: no longer');
      assert.match(expired.text, /This link no longer works/);

      const second = await resetLink(email);
      const third = await resetLink(email);
      const browser = new DashboardBrowser(ctx.gw.url);
      await browser.get(`/dashboard/set-password?token=${third}`);
      const set = await browser.post('/dashboard/set-password', {
        token: third,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.equal(set.location, '/dashboard/login?password_set=1');
      assert.equal((await open(second)).status, 404, 'an older link, still within its time, is used up with it');
    });

    test('a link is asked for at most three times an hour per address, and ten times per client address, with the same answer', async () => {
      clock.set(START);
      const email = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
      const { ask } = asker();
      for (let i = 0; i < 4; i++) assert.equal((await ask(email)).location, '/dashboard/forgot-password?sent=1');
      // Another account's email, asked for last from the same client, shows the work of the asks before it is done.
      const other = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
      await resetLink(other);
      assert.equal((await resetEmails(email)).length, 3, 'the fourth ask of the hour sent nothing');

      const crowd = asker();
      for (let i = 0; i < 10; i++)
        assert.equal(
          (await crowd.ask(`someone${i}-${kind}@example.com`)).location,
          '/dashboard/forgot-password?sent=1',
        );
      const refused = await crowd.ask(`someone-else-${kind}@example.com`);
      assert.equal(refused.status, 429);
      assert.match(refused.text, /Too many password links were asked for from your network/);
    });

    test('an operator’s account works the same; a removed team member is sent nothing', async () => {
      clock.set(START);
      const operator = await dashboardUser(ctx.gw, 'operator');
      const token = await resetLink(operator);
      const [mail] = await resetEmails(operator);
      assert.equal(mail!.merchant_id, null);
      assert.match(mail!.subject, /the Lipira gateway dashboard/);
      const browser = new DashboardBrowser(ctx.gw.url);
      await browser.get(`/dashboard/set-password?token=${token}`);
      const set = await browser.post('/dashboard/set-password', {
        token,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.equal(set.location, '/dashboard/login?password_set=1');
      assert.equal((await browser.signIn(operator, NEW_PASSWORD)).location, '/dashboard');

      const owner = await userRow(await dashboardUser(ctx.gw, 'owner', ctx.merchant.id));
      const removed = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
      await changeTeamMember(
        db(),
        { merchantId: ctx.merchant.id, actorId: owner.id, userId: (await userRow(removed)).id },
        'removed',
        clock.now(),
      );
      assert.equal((await asker().ask(removed)).location, '/dashboard/forgot-password?sent=1');
      await resetLink(operator);
      assert.deepEqual(await resetEmails(removed), [], 'a removed member cannot get back in');
    });
  });
}
