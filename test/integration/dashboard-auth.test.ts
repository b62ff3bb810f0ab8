import assert from 'node:assert/strict';
import { createUser } from '../../src/users/user-service.ts';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { lipira } from '../helpers/cli.ts';
import { DashboardBrowser, shownTotpSecret, totpCode } from '../helpers/dashboard.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { temporaryFolder, type TemporaryFolder } from '../helpers/temp-folders.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { tokenId } from '../../src/users/tokens.ts';

const PASSWORD = 'correct horse battery staple';
const LINK = /(http:\/\/\S+\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43}))/;

for (const kind of DATABASE_KINDS) {
  describe(`dashboard sign-in (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let outbox: TemporaryFolder;
    const lines: string[] = [];
    let emails = 0;

    before(async () => {
      outbox = temporaryFolder('lipira-dashboard-outbox-');
      const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
      gw = await startTestGateway(
        kind,
        { OUTBOX_DIR: outbox.dir, WORKER_INTERVAL: '100ms' },
        pino({ level: 'debug' }, sink),
      );
      merchant = await gw.newMerchant('Chikondi Crafts');
    });
    after(async () => {
      await gw.close();
      outbox.remove();
    });

    const db = () => gw.gateway.database.db;
    const cli = (args: string[], input?: string) =>
      lipira(
        ['users', 'create', ...args],
        { DATABASE_URL: gw.database.url, PUBLIC_BASE_URL: gw.url },
        undefined,
        input,
      );
    /** A merchant's user with a password, made through the command line (`--password-stdin`); its email. */
    async function userMadeByCli(role = 'owner'): Promise<string> {
      const email = `user${++emails}@example.com`;
      const made = await cli(
        ['--merchant', merchant.id, '--email', email, '--role', role, '--json', '--password-stdin'],
        `${PASSWORD}\n`,
      );
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).set_password_link, null);
      return email;
    }
    /**
     * A merchant's user with a password, made through the service the command line calls: a
     * process per user (the bundle, the password checker's thread) cost each test seconds.
     */
    async function userWithPassword(role: 'owner' | 'developer' | 'viewer' = 'owner'): Promise<string> {
      const email = `user${++emails}@example.com`;
      await createUser(
        db(),
        { publicBaseUrl: gw.url },
        { merchantId: merchant.id, email, role, password: PASSWORD },
        Date.now(),
      );
      return email;
    }
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();

    test('a user made with --password-stdin signs in, sees who they are, and signs out', async () => {
      const email = await userMadeByCli();
      const browser = new DashboardBrowser(gw.url);
      assert.equal(
        (await browser.get('/dashboard')).location,
        '/dashboard/login',
        'signed out, the dashboard sends the browser to sign in',
      );
      const signedIn = await browser.signIn(email.toUpperCase(), PASSWORD);
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.location, '/dashboard');
      const home = await browser.get('/dashboard');
      assert.equal(home.status, 200);
      assert.match(
        home.text,
        new RegExp(`Signed in as <strong>${email}</strong> \\(owner\\) for <strong>Chikondi Crafts</strong>`),
      );
      assert.match(
        home.headers.get('content-security-policy') ?? '',
        /default-src 'none'; script-src 'self'; style-src 'self'/,
      );
      assert.equal(home.headers.get('x-frame-options'), 'DENY');
      assert.equal(home.headers.get('cache-control'), 'no-store');

      const id = tokenId(browser.cookies.get('lipira_dashboard')!);
      const out = await browser.post('/dashboard/logout', {});
      assert.equal(out.location, '/dashboard/login?signed_out=1');
      assert.equal(browser.cookies.has('lipira_dashboard'), false, 'the cookie is cleared');
      assert.equal(
        await db().selectFrom('user_sessions').select('id').where('id', '=', id).executeTakeFirst(),
        undefined,
        'the session is gone from the database',
      );
      assert.equal((await browser.get('/dashboard')).location, '/dashboard/login');
    });

    test('the session cookie is HttpOnly, SameSite=Lax, scoped to /dashboard, and holds a token only its hash of which is stored', async () => {
      const email = await userWithPassword();
      const browser = new DashboardBrowser(gw.url);
      await browser.signIn(email, PASSWORD);
      const cookie = browser.setCookies.find(
        (header) => header.startsWith('lipira_dashboard=') && !/Max-Age=0/.test(header),
      )!;
      assert.match(cookie, /; Path=\/dashboard; HttpOnly; SameSite=Lax$/, 'no Secure over plain http');
      const token = browser.cookies.get('lipira_dashboard')!;
      assert.match(token, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
      const sessions = await db().selectFrom('user_sessions').selectAll().execute();
      assert.ok(sessions.some((session) => session.id === tokenId(token)));
      assert.ok(
        sessions.every((session) => session.id !== token),
        'the token itself is not stored',
      );
      await browser.post('/dashboard/logout', {});
    });

    test('without --password-stdin the one-time link is printed and emailed through the outbox, and works once', async () => {
      const email = `invited${++emails}@example.com`;
      const made = await cli(['--merchant', merchant.id, '--email', email, '--role', 'viewer']);
      assert.equal(made.code, 0, made.stderr);
      const [, link, token] = LINK.exec(made.stdout)!;
      assert.ok(link, made.stdout);
      const user = await userRow(email);
      assert.equal(user.password_hash, null);
      assert.equal(user.role, 'viewer');

      const queued = await db()
        .selectFrom('emails')
        .selectAll()
        .where('kind', '=', 'set_password')
        .where('recipient', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(queued.merchant_id, merchant.id);
      assert.equal(queued.event_id, null);
      const sent = await eventually('the set-password email written to the outbox', async () => {
        const file = path.join(outbox.dir, `${queued.id}.eml`);
        return fs.existsSync(file) && fs.readFileSync(file, 'utf8');
      });
      assert.match(sent, new RegExp(`To: ${email}`));
      assert.ok(sent.replace(/=\r\n/g, '').includes(token!), 'the email carries the link');

      const browser = new DashboardBrowser(gw.url);
      const form = await browser.get(`/dashboard/set-password?token=${token}`);
      assert.equal(form.status, 200);
      assert.match(form.text, /Set your password/);
      const mismatch = await browser.post('/dashboard/set-password', {
        token: token!,
        password: PASSWORD,
        confirm: `${PASSWORD}!`,
      });
      assert.equal(mismatch.status, 422);
      const short = await browser.post('/dashboard/set-password', {
        token: token!,
        password: 'short',
        confirm: 'short',
      });
      assert.equal(short.status, 422);
      assert.match(short.text, /at least 12 characters/);
      const set = await browser.post('/dashboard/set-password', {
        token: token!,
        password: PASSWORD,
        confirm: PASSWORD,
      });
      assert.equal(set.location, '/dashboard/login?password_set=1');
      assert.equal(
        (
          await browser.post('/dashboard/set-password', {
            token: token!,
            password: 'another good password',
            confirm: 'another good password',
          })
        ).status,
        404,
        'the link works once',
      );
      assert.equal((await browser.get(`/dashboard/set-password?token=${token}`)).status, 404);

      assert.equal((await browser.signIn(email, PASSWORD)).location, '/dashboard');
      assert.match((await browser.get('/dashboard')).text, /\(viewer\) for <strong>Chikondi Crafts<\/strong>/);
      const audit = await db()
        .selectFrom('audit_log')
        .select(['action', 'merchant_id'])
        .where('subject', '=', user.id)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        audit.map((entry) => entry.action),
        ['user.create', 'user.password_set'],
      );
      await browser.post('/dashboard/logout', {});
    });

    test('a password easy to guess is refused from the command line and from the link, saying what would pass', async () => {
      const advice =
        'Choose a longer password: a few unrelated words, 12 characters or more; avoid names, dates and repeated letters.';
      const email = `weak${++emails}@example.com`;
      for (const weak of ['aaaaaaaaaaaa', 'chikondicrafts2026']) {
        const refused = await cli(
          ['--merchant', merchant.id, '--email', email, '--role', 'owner', '--password-stdin'],
          `${weak}\n`,
        );
        assert.equal(refused.code, 2, weak);
        assert.ok(refused.stderr.includes(advice), refused.stderr);
      }
      assert.equal(
        await db().selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
        undefined,
        'no user was made',
      );

      const made = await cli(['--merchant', merchant.id, '--email', email, '--role', 'owner']);
      const [, , token] = LINK.exec(made.stdout)!;
      const browser = new DashboardBrowser(gw.url);
      await browser.get(`/dashboard/set-password?token=${token}`);
      for (const weak of ['Password1234', 'Chikondi Crafts 2026']) {
        const refused = await browser.post('/dashboard/set-password', { token: token!, password: weak, confirm: weak });
        assert.equal(refused.status, 422, weak);
        assert.ok(refused.text.includes(advice), weak);
      }
      assert.equal((await userRow(email)).password_hash, null);
      assert.equal(
        (await browser.post('/dashboard/set-password', { token: token!, password: PASSWORD, confirm: PASSWORD }))
          .location,
        '/dashboard/login?password_set=1',
        'the link still works for a strong one',
      );
    });

    test('a long password is judged off the event loop: /healthz keeps answering while the set-password form is judged', async (t) => {
      const made = await cli([
        '--merchant',
        merchant.id,
        '--email',
        `patient${++emails}@example.com`,
        '--role',
        'viewer',
      ]);
      const [, , token] = LINK.exec(made.stdout)!;
      const browser = new DashboardBrowser(gw.url);
      await browser.get(`/dashboard/set-password?token=${token}`);
      const long = 'x7$Kq!2mZp@9vLw#'.repeat(7).slice(0, 100);
      const answered: number[] = [];
      let judging = true;
      const probing = (async () => {
        while (judging) {
          await (await fetch(`${gw.url}/healthz`)).arrayBuffer();
          answered.push(performance.now());
        }
      })();
      const started = performance.now();
      const set = await browser.post('/dashboard/set-password', { token: token!, password: long, confirm: long });
      const ended = performance.now();
      judging = false;
      await probing;
      assert.equal(set.location, '/dashboard/login?password_set=1', set.text);
      // Measured against the answer's own duration, most of which is the judging: on the event loop, one wait spans it.
      const marks = [started, ...answered.filter((at) => at > started && at < ended), ended];
      const longestWait = Math.max(...marks.slice(1).map((at, index) => at - marks[index]!));
      const measured = `${marks.length - 2} probes answered in ${Math.round(ended - started)} ms, the longest wait ${Math.round(longestWait)} ms`;
      t.diagnostic(measured);
      assert.ok(marks.length - 2 >= 3 && longestWait < (ended - started) / 2, measured);
    });

    test('an expired set-password link no longer works', async () => {
      const made = await cli([
        '--merchant',
        merchant.id,
        '--email',
        `late${++emails}@example.com`,
        '--role',
        'developer',
      ]);
      const [, , token] = LINK.exec(made.stdout)!;
      await db()
        .updateTable('password_links')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', tokenId(token!))
        .execute();
      assert.equal((await new DashboardBrowser(gw.url).get(`/dashboard/set-password?token=${token}`)).status, 404);
    });

    test('an operator is made without a merchant, and refused with one; a second user with the same address is refused', async () => {
      const email = `operator${++emails}@example.com`;
      const made = await cli(['--operator', '--email', email, '--json'], undefined);
      assert.equal(made.code, 0, made.stderr);
      const created = JSON.parse(made.stdout);
      assert.equal(created.role, 'operator');
      assert.equal(created.merchant_id, null);
      assert.match(created.set_password_link, LINK);
      const operatorMail = await db()
        .selectFrom('emails')
        .select('merchant_id')
        .where('recipient', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(operatorMail.merchant_id, null);
      assert.equal((await cli(['--operator', '--merchant', merchant.id, '--email', 'x@example.com'])).code, 2);
      const again = await cli(['--merchant', merchant.id, '--email', email.toUpperCase(), '--role', 'owner']);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /already exists/);
      assert.equal((await cli(['--merchant', merchant.id, '--email', 'y@example.com', '--role', 'admin'])).code, 2);
    });

    test('five wrong passwords lock the account for 15 minutes: the right one is refused until the lock ends', async () => {
      const email = await userWithPassword();
      const browser = new DashboardBrowser(gw.url);
      for (let i = 0; i < 5; i++) {
        const wrong = await browser.signIn(email, `wrong password ${i}`);
        assert.equal(wrong.status, 401);
        assert.match(wrong.text, /The email or password is wrong/);
      }
      const locked = await userRow(email);
      assert.ok(locked.locked_until! > Date.now() + 14 * 60_000 && locked.locked_until! <= Date.now() + 15 * 60_000);
      const refused = await browser.signIn(email, PASSWORD);
      assert.equal(refused.status, 401, 'the right password is refused while locked');
      assert.equal(browser.cookies.has('lipira_dashboard'), false);
      const entries = await db().selectFrom('audit_log').select('action').where('subject', '=', locked.id).execute();
      assert.ok(entries.some((entry) => entry.action === 'user.locked'));

      await db()
        .updateTable('users')
        .set({ locked_until: Date.now() - 1 })
        .where('id', '=', locked.id)
        .execute();
      assert.equal((await browser.signIn(email, PASSWORD)).location, '/dashboard', 'the lock has ended');
      assert.equal((await userRow(email)).failed_logins, 0);
      await browser.post('/dashboard/logout', {});
    });

    test('two-factor sign-in: enrolment with the QR code and key, then every sign-in asks for a code, used once', async () => {
      const email = await userWithPassword('developer');
      const browser = new DashboardBrowser(gw.url);
      await browser.signIn(email, PASSWORD);
      const setup = await browser.get('/dashboard/settings/two-factor');
      assert.equal(setup.status, 200);
      assert.match(
        setup.text,
        /<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code for your authenticator app"/,
      );
      const secret = shownTotpSecret(setup);
      const wrong = await browser.post('/dashboard/settings/two-factor', {
        action: 'enable',
        secret,
        code: '000000' === totpCode(secret) ? '111111' : '000000',
      });
      assert.equal(wrong.status, 422);
      assert.equal((await userRow(email)).totp_secret, null, 'a wrong code keeps two-factor off');
      const enabled = await browser.post('/dashboard/settings/two-factor', {
        action: 'enable',
        secret,
        code: totpCode(secret),
      });
      assert.equal(enabled.status, 200, 'the answer shows the recovery codes, once');
      assert.match(enabled.text, /Two-factor sign-in is on/);
      const on = await browser.get('/dashboard/settings/two-factor');
      assert.match(on.text, /Two-factor sign-in is <strong>on<\/strong>/);
      assert.ok(!on.text.includes(secret), 'the key is never shown again');
      await browser.post('/dashboard/logout', {});

      const second = new DashboardBrowser(gw.url);
      const password = await second.signIn(email, PASSWORD);
      assert.equal(password.location, '/dashboard/login', 'the right password leads to the code step');
      assert.equal((await second.get('/dashboard')).location, '/dashboard/login', 'no page opens before the code');
      const codePage = await second.get('/dashboard/login');
      assert.match(codePage.text, /Enter your code/);
      const again = await second.post('/dashboard/login', { email, password: PASSWORD });
      assert.equal(again.location, '/dashboard/login', 'a password form from an older tab starts the sign-in again');
      assert.equal((await userRow(email)).failed_logins, 0, 'and is not taken for a wrong code');
      assert.equal((await second.post('/dashboard/login', { code: '12345' })).status, 401);
      const halfToken = second.cookies.get('lipira_dashboard');
      const code = totpCode(secret, 1);
      const signedIn = await second.post('/dashboard/login', { code });
      assert.equal(signedIn.location, '/dashboard');
      assert.notEqual(second.cookies.get('lipira_dashboard'), halfToken, 'a new token once the code is right');
      assert.equal((await second.get('/dashboard')).status, 200);

      const third = new DashboardBrowser(gw.url);
      assert.equal((await third.signIn(email, PASSWORD, code)).status, 401, 'a code already used is refused');

      const off = await second.post('/dashboard/settings/two-factor', {
        action: 'disable',
        code: totpCode(secret, -1),
      });
      assert.equal(off.status, 422, 'an older code than the last one used does not turn it off');
      await db().updateTable('users').set({ totp_last_step: null }).where('email', '=', email).execute();
      assert.equal(
        (await second.post('/dashboard/settings/two-factor', { action: 'disable', code: totpCode(secret) })).location,
        '/dashboard/settings/two-factor',
      );
      assert.equal((await userRow(email)).totp_secret, null);
      const audit = await db()
        .selectFrom('audit_log')
        .select('action')
        .where('subject', '=', (await userRow(email)).id)
        .execute();
      assert.deepEqual(
        audit
          .map((entry) => entry.action)
          .filter((action) => action.startsWith('user.two_factor'))
          .sort(),
        ['user.two_factor_off', 'user.two_factor_on'],
      );
      await second.post('/dashboard/logout', {});
    });

    test('forms without the anti-forgery token, with a wrong one, or from another origin are refused with 403', async () => {
      const email = await userWithPassword();
      const browser = new DashboardBrowser(gw.url);
      await browser.get('/dashboard/login');
      assert.equal((await browser.post('/dashboard/login', { email, password: PASSWORD }, { csrf: null })).status, 403);
      assert.equal(
        (await browser.post('/dashboard/login', { email, password: PASSWORD }, { csrf: 'x'.repeat(32) })).status,
        403,
      );
      assert.equal(
        (
          await browser.post(
            '/dashboard/login',
            { email, password: PASSWORD },
            { headers: { origin: 'https://evil.example' } },
          )
        ).status,
        403,
      );
      assert.equal(browser.cookies.has('lipira_dashboard'), false);
      await browser.signIn(email, PASSWORD);
      assert.equal((await browser.post('/dashboard/logout', {}, { csrf: null })).status, 403);
      assert.equal((await browser.get('/dashboard')).status, 200, 'a forged sign-out did nothing');
      assert.equal((await browser.post('/dashboard/logout-everywhere', {}, { csrf: null })).status, 403);
      assert.equal(
        (await browser.post('/dashboard/settings/two-factor', { action: 'disable', code: '123456' }, { csrf: null }))
          .status,
        403,
      );
      await browser.post('/dashboard/logout', {});
    });

    test('a sign-in with text that is no address (a NUL character, 300 characters) is refused like a wrong password', async () => {
      const browser = new DashboardBrowser(gw.url);
      await browser.get('/dashboard/login');
      for (const email of ['owner\u0000@example.com', `${'a'.repeat(300)}@example.com`]) {
        const answer = await browser.post('/dashboard/login', { email, password: PASSWORD });
        assert.equal(answer.status, 401);
        assert.match(answer.text, /The email or password is wrong/);
      }
    });

    test('a session idle for 30 minutes, or 12 hours old, has ended', async () => {
      const email = await userWithPassword();
      const browser = new DashboardBrowser(gw.url);
      await browser.signIn(email, PASSWORD);
      const id = tokenId(browser.cookies.get('lipira_dashboard')!);
      await db()
        .updateTable('user_sessions')
        .set({ last_seen_at: Date.now() - 29 * 60_000 })
        .where('id', '=', id)
        .execute();
      assert.equal((await browser.get('/dashboard')).status, 200, '29 minutes idle: still open');
      assert.ok(
        (await db().selectFrom('user_sessions').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow())
          .last_seen_at >
          Date.now() - 60_000,
        'the visit was recorded',
      );
      await db()
        .updateTable('user_sessions')
        .set({ last_seen_at: Date.now() - 30 * 60_000 })
        .where('id', '=', id)
        .execute();
      assert.equal((await browser.get('/dashboard')).location, '/dashboard/login', '30 minutes idle: ended');
      assert.equal(
        await db().selectFrom('user_sessions').select('id').where('id', '=', id).executeTakeFirst(),
        undefined,
      );

      await browser.signIn(email, PASSWORD);
      const next = tokenId(browser.cookies.get('lipira_dashboard')!);
      await db()
        .updateTable('user_sessions')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', next)
        .execute();
      assert.equal(
        (await browser.get('/dashboard')).location,
        '/dashboard/login',
        'past its absolute end, however active',
      );
    });

    test('signing out everywhere ends the sessions of every browser', async () => {
      const email = await userWithPassword();
      const laptop = new DashboardBrowser(gw.url);
      const phone = new DashboardBrowser(gw.url);
      await laptop.signIn(email, PASSWORD);
      await phone.signIn(email, PASSWORD);
      assert.equal((await phone.get('/dashboard')).status, 200);
      const out = await laptop.post('/dashboard/logout-everywhere', {});
      assert.equal(out.location, '/dashboard/login?signed_out=1');
      assert.equal((await phone.get('/dashboard')).location, '/dashboard/login');
      assert.equal((await laptop.get('/dashboard')).location, '/dashboard/login');
      const user = await userRow(email);
      assert.equal(
        await db().selectFrom('user_sessions').select('id').where('user_id', '=', user.id).executeTakeFirst(),
        undefined,
      );
      assert.ok(
        await db()
          .selectFrom('audit_log')
          .select('id')
          .where('action', '=', 'user.signed_out_everywhere')
          .where('subject', '=', user.id)
          .executeTakeFirst(),
      );
    });

    test('no password, password hash, two-factor key or session token appears in a log line or a page', async () => {
      const email = await userWithPassword();
      const browser = new DashboardBrowser(gw.url);
      const pages: string[] = [];
      const keep = <T extends { text: string }>(answer: T) => (pages.push(answer.text), answer);
      keep(await browser.signIn(email, PASSWORD));
      keep(await browser.get('/dashboard'));
      const secret = shownTotpSecret(await browser.get('/dashboard/settings/two-factor'));
      keep(await browser.post('/dashboard/settings/two-factor', { action: 'enable', secret, code: totpCode(secret) }));
      keep(await browser.get('/dashboard/settings/two-factor'));
      const token = browser.cookies.get('lipira_dashboard')!;
      const { password_hash: hash } = await userRow(email);
      const [, , salt, stored] = hash!.split('$').slice(2);
      assert.ok(lines.length > 0, 'something was logged');
      const logs = lines.join('\n');
      for (const [name, value] of [
        ['password', PASSWORD],
        ['hash', stored!],
        ['salt', salt!],
        ['two-factor key', secret],
        ['session token', token],
        ['token hash', tokenId(token)],
      ] as const) {
        assert.ok(!logs.includes(value), `no ${name} in the logs`);
        assert.ok(!pages.some((page) => page.includes(value)), `no ${name} in a page`);
      }
      await browser.post('/dashboard/logout', {});
    });
  });
}

/** A user with a password on a fresh SQLite gateway. */
async function gatewayWithUser(env: Record<string, string> = {}): Promise<TestGateway> {
  const gw = await startTestGateway('sqlite', env);
  const merchant = await gw.newMerchant();
  const made = await lipira(
    [
      'users',
      'create',
      '--merchant',
      merchant.id,
      '--email',
      'owner@example.com',
      '--role',
      'owner',
      '--password-stdin',
    ],
    { DATABASE_URL: gw.database.url },
    undefined,
    `${PASSWORD}\n`,
  );
  assert.equal(made.code, 0, made.stderr);
  return gw;
}

describe('the dashboard served as https', () => {
  test('its cookies are Secure', async () => {
    const gw = await gatewayWithUser({ PUBLIC_BASE_URL: 'https://pay.example.test' });
    try {
      const browser = new DashboardBrowser(gw.url);
      assert.equal((await browser.signIn('owner@example.com', PASSWORD)).location, '/dashboard');
      const session = browser.setCookies.find((header) => header.startsWith('lipira_dashboard='))!;
      assert.match(session, /; Path=\/dashboard; HttpOnly; SameSite=Lax; Secure$/);
      assert.ok(
        browser.setCookies
          .filter((header) => header.startsWith('lipira_csrf='))
          .every((header) => header.includes('; Secure')),
      );
    } finally {
      await gw.close();
    }
  });
});

describe('dashboard sign-in limits per address', () => {
  test('after 20 failed sign-ins from one address, it is refused (429) for a while, even with the right password', async () => {
    const gw = await gatewayWithUser();
    try {
      const browser = new DashboardBrowser(gw.url);
      await browser.get('/dashboard/login');
      for (let i = 0; i < 20; i++)
        assert.equal(
          (await browser.post('/dashboard/login', { email: `nobody${i}@example.com`, password: 'guess guess guess' }))
            .status,
          401,
        );
      const refused = await browser.post('/dashboard/login', { email: 'owner@example.com', password: PASSWORD });
      assert.equal(refused.status, 429);
      assert.match(refused.text, /Too many failed sign-ins/);
      assert.equal(
        (await gw.gateway.database.db.selectFrom('users').select('failed_logins').executeTakeFirstOrThrow())
          .failed_logins,
        0,
        'no account was charged for them',
      );
    } finally {
      await gw.close();
    }
  });
});
