import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fakeClock } from '../helpers/clock.ts';
import { DashboardBrowser, shownTotpSecret, totpCode, type PageAnswer } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { LOCK_MS, MAX_FAILED_LOGINS } from '../../src/users/sign-in.ts';
import { tokenId } from '../../src/users/tokens.ts';

/** An instant far from today, so that nothing can pass for reading the system's time. */
const START = Date.UTC(2031, 8, 1, 9, 0, 0);
const CODE = /<li><code>([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})<\/code><\/li>/g;
const WRONG_RECOVERY = /That recovery code is not right, or was already used/;

/** The recovery codes a page shows. */
const shownCodes = (page: PageAnswer): string[] => [...page.text.matchAll(CODE)].map((match) => match[1]!);

for (const kind of DATABASE_KINDS) {
  describe(`dashboard: two-factor recovery codes (${kind})`, () => {
    const clock = fakeClock(START);
    // Behind a proxy, so that each test's failed sign-ins count against a client address of its own.
    const ctx = useTestGateway(kind, { CLIENT_ADDRESS_HEADER: 'x-forwarded-for' }, clock);
    let addresses = 0;

    const db = () => ctx.gw.gateway.database.db;
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const codeRows = (userId: string) =>
      db().selectFrom('recovery_codes').selectAll().where('user_id', '=', userId).execute();
    /** The authenticator's code half a minute on: each use of a code needs a later one. */
    const nextTotp = (secret: string) => {
      clock.advance(30_000);
      return totpCode(secret, 0, clock.now());
    };

    /** A new owner signed in, with two-factor sign-in turned on; the page that answered it. */
    async function enrolled() {
      clock.set(START);
      const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
      const browser = new DashboardBrowser(ctx.gw.url);
      assert.equal((await browser.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard');
      const secret = shownTotpSecret(await browser.get('/dashboard/settings/two-factor'));
      const shown = await browser.post('/dashboard/settings/two-factor', {
        action: 'enable',
        secret,
        code: totpCode(secret, 0, clock.now()),
      });
      assert.equal(shown.status, 200, shown.text);
      const user = await userRow(email);
      return { email, user, secret, browser, shown, codes: shownCodes(shown) };
    }

    /** A browser at the code step of sign-in for `email`, asking from a client address of its own. */
    async function atCodeStep(email: string) {
      const from = `198.51.100.${++addresses}`;
      const browser = new DashboardBrowser(ctx.gw.url);
      const signIn = await browser.signIn(email, DASHBOARD_PASSWORD);
      assert.equal(signIn.location, '/dashboard/login', 'the right password leads to the code step');
      const page = await browser.get('/dashboard/login');
      const post = (form: Record<string, string>) =>
        browser.post('/dashboard/login', form, { headers: { 'x-forwarded-for': from } });
      return { browser, page, post };
    }

    test('turning two-factor on shows ten codes once, to download or copy; only their hashes are kept', async () => {
      const { user, browser, shown, codes } = await enrolled();
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      assert.match(shown.text, /Two-factor sign-in is on/);
      assert.match(shown.text, /they are shown only now/);
      assert.equal(shown.headers.get('cache-control'), 'no-store');

      const download =
        /<a class="button" href="data:text\/plain;charset=utf-8,([^"]+)" download="lipira-recovery-codes.txt">/.exec(
          shown.text,
        );
      assert.ok(download, 'a download link to a text file');
      const file = decodeURIComponent(download[1]!);
      assert.deepEqual(
        file.split('\n').filter((line) => /^[0-9a-z]{4}-/.test(line)),
        codes,
        'the file holds the codes, one a line',
      );
      const copy =
        /<button type="button" class="copy secondary" data-copy="([^"]+)" aria-label="Copy the codes" hidden>Copy the codes<\/button>/.exec(
          shown.text,
        );
      assert.ok(copy, 'a copy button, hidden until the script shows it');
      assert.equal(copy[1], codes.join('\n'));
      assert.match(shown.text, /<script src="\/dashboard\/assets\/dashboard.js" defer><\/script>/);
      const script = await fetch(`${ctx.gw.url}/dashboard/assets/dashboard.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.match(await script.text(), /navigator\.clipboard\.writeText/);

      const rows = await codeRows(user.id);
      assert.equal(rows.length, 10);
      const hashes = new Set(rows.map((row) => row.code_hash));
      for (const code of codes) {
        assert.ok(hashes.has(tokenId(code.replaceAll('-', ''))), 'each code is kept as its SHA-256');
        assert.ok(rows.every((row) => !row.code_hash.includes(code.replaceAll('-', '')) && row.id !== code));
      }

      const page = await browser.get('/dashboard/settings/two-factor');
      assert.match(page.text, /<strong>10 of 10<\/strong> recovery codes are left/);
      assert.deepEqual(shownCodes(page), [], 'the codes are never shown again');
      assert.ok(codes.every((code) => !page.text.includes(code)));
    });

    test('a recovery code signs in in place of the app’s code, once; its use is audited and emailed', async () => {
      const { email, user, codes } = await enrolled();
      const first = await atCodeStep(email);
      assert.match(first.page.text, /Or use a recovery code/);
      assert.match(first.page.text, /<label>Recovery code<input type="text" name="recovery_code"/);
      // Typed as someone copying from paper might: capitals, spaces for dashes, an O for a zero.
      const typed = codes[3]!.toUpperCase().replaceAll('-', ' ').replaceAll('0', 'O');
      const signedIn = await first.post({ recovery_code: typed });
      assert.equal(signedIn.location, '/dashboard');
      assert.equal((await first.browser.get('/dashboard')).status, 200);

      const audit = await db()
        .selectFrom('audit_log')
        .selectAll()
        .where('subject', '=', user.id)
        .where('action', '=', 'user.recovery_code_used')
        .execute();
      assert.equal(audit.length, 1);
      assert.deepEqual(JSON.parse(audit[0]!.detail!), { codes_left: 9 });
      assert.equal(audit[0]!.user_id, user.id);
      const mail = await db()
        .selectFrom('emails')
        .selectAll()
        .where('recipient', '=', email)
        .where('kind', '=', 'recovery_code_used')
        .executeTakeFirstOrThrow();
      assert.equal(mail.merchant_id, ctx.merchant.id);
      assert.equal(mail.status, 'pending', 'queued in the outbox');
      assert.match(mail.subject, /A recovery code was used to sign in to the Test Shop dashboard/);
      assert.match(mail.text_body, /9 recovery codes are left/);
      assert.match(mail.text_body, /\/dashboard\/settings\/two-factor/);
      assert.match(
        (await first.browser.get('/dashboard/settings/two-factor')).text,
        /<strong>9 of 10<\/strong> recovery codes are left/,
      );

      const second = await atCodeStep(email);
      const reused = await second.post({ recovery_code: codes[3]! });
      assert.equal(reused.status, 401, 'a code works once');
      assert.match(reused.text, WRONG_RECOVERY);
      assert.equal((await userRow(email)).failed_logins, 1, 'and a used one counts as a wrong guess');
      assert.equal((await second.browser.get('/dashboard')).location, '/dashboard/login');
      assert.equal((await second.post({ recovery_code: codes[4]! })).location, '/dashboard', 'another still works');
    });

    test('new codes need a current code from the app, replace every earlier one and are shown once', async () => {
      const { email, user, secret, browser, codes } = await enrolled();
      const wrong = await browser.post('/dashboard/settings/two-factor', { action: 'regenerate', code: '000000' });
      assert.equal(wrong.status, 422);
      assert.match(wrong.text, /That code is not right/);
      assert.equal((await codeRows(user.id)).filter((row) => row.used_at === null).length, 10, 'nothing changed');

      const code = nextTotp(secret);
      const renewed = await browser.post('/dashboard/settings/two-factor', { action: 'regenerate', code });
      assert.equal(renewed.status, 200);
      assert.match(renewed.text, /New recovery codes are made: the earlier ones no longer work/);
      const fresh = shownCodes(renewed);
      assert.equal(fresh.length, 10);
      assert.ok(fresh.every((newCode) => !codes.includes(newCode)));
      assert.equal((await codeRows(user.id)).length, 10, 'the earlier codes are gone');
      const replay = await browser.post('/dashboard/settings/two-factor', { action: 'regenerate', code });
      assert.equal(replay.status, 422, 'the app’s code that made them does not make others');
      const audit = await db()
        .selectFrom('audit_log')
        .select('action')
        .where('subject', '=', user.id)
        .where('action', '=', 'user.recovery_codes_new')
        .execute();
      assert.equal(audit.length, 1);

      const old = await atCodeStep(email);
      const refused = await old.post({ recovery_code: codes[0]! });
      assert.equal(refused.status, 401, 'an earlier code no longer works');
      assert.match(refused.text, WRONG_RECOVERY);
      assert.equal((await old.post({ recovery_code: fresh[0]! })).location, '/dashboard', 'a new one does');
    });

    test('turning two-factor off deletes the codes', async () => {
      const { user, secret, browser } = await enrolled();
      assert.equal((await codeRows(user.id)).length, 10);
      const off = await browser.post('/dashboard/settings/two-factor', { action: 'disable', code: nextTotp(secret) });
      assert.equal(off.location, '/dashboard/settings/two-factor');
      assert.equal((await userRow(user.email)).totp_secret, null);
      assert.deepEqual(await codeRows(user.id), []);
    });

    test('wrong recovery codes count towards the lock with wrong app codes; a locked account refuses the right one', async () => {
      const { email, user, codes } = await enrolled();
      const step = await atCodeStep(email);
      for (let i = 0; i < 2; i++) assert.equal((await step.post({ code: '000000' })).status, 401);
      for (let i = 2; i < MAX_FAILED_LOGINS; i++) {
        const wrong = await step.post({ recovery_code: `aaaa-bbbb-cccc-ddd${i}` });
        assert.equal(wrong.status, 401);
        assert.match(wrong.text, WRONG_RECOVERY);
      }
      const locked = await userRow(email);
      assert.equal(locked.locked_until, clock.now() + LOCK_MS, 'five wrong codes of either kind lock the account');
      const lockEntries = await db()
        .selectFrom('audit_log')
        .select('id')
        .where('subject', '=', user.id)
        .where('action', '=', 'user.locked')
        .execute();
      assert.equal(lockEntries.length, 1);

      const refused = await step.post({ recovery_code: codes[0]! });
      assert.equal(refused.status, 401, 'the right recovery code is refused while locked');
      assert.ok(
        (await codeRows(user.id)).every((row) => row.used_at === null),
        'and is not used up by the refusal',
      );
      clock.advance(LOCK_MS);
      const later = await atCodeStep(email);
      assert.equal((await later.post({ recovery_code: codes[0]! })).location, '/dashboard', 'once the lock ends');
    });

    test('a hundred recovery codes at once, the right one last: none signs in, none is used up, one lock', async () => {
      const { email, user, codes } = await enrolled();
      const step = await atCodeStep(email);
      const guesses = Array.from({ length: 100 }, (_, i) =>
        i === 99 ? codes[0]! : `zzzz-zzzz-zzzz-${String(i).padStart(4, '0')}`,
      );
      const answers = await Promise.all(
        guesses.map((guess, i) =>
          step.browser.post(
            '/dashboard/login',
            { recovery_code: guess },
            { headers: { 'x-forwarded-for': `192.0.2.${i + 1}` } },
          ),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        guesses.map(() => 401),
      );
      assert.equal((await step.browser.get('/dashboard')).location, '/dashboard/login', 'no guess signed in');
      assert.ok((await userRow(email)).locked_until! > clock.now());
      const lockEntries = await db()
        .selectFrom('audit_log')
        .select('id')
        .where('subject', '=', user.id)
        .where('action', '=', 'user.locked')
        .execute();
      assert.equal(lockEntries.length, 1, 'one lock, audited once');
      assert.ok(
        (await codeRows(user.id)).every((row) => row.used_at === null),
        'no code was used up',
      );
    });
  });
}
