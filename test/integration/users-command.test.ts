import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { BIN, lipira, outputOf, type CliResult } from '../helpers/cli.ts';
import { DashboardBrowser, totpCode, withoutCellLabels } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';
import type { AccountEmailKind } from '../../src/db/schema.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { newTotpSecret } from '../../src/users/totp.ts';
import { enableTwoFactor } from '../../src/users/user-service.ts';

const LINK = /http:\/\/\S+\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43})/;
const USER_KEYS = ['id', 'merchant_id', 'email', 'role', 'password_set', 'two_factor', 'disabled_at', 'created_at'];

/** A one-line complaint on stderr, nothing on stdout, and the exit status. */
function assertRefused(result: CliResult, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
}

/**
 * `lipira users list | reset-password | reset-2fa | disable | enable`, run as the real command
 * (its output piped to the test) against the database a running gateway serves: what each does is
 * seen from the dashboard's side, in the audit log (as the command line's doing) and the outbox.
 */
for (const kind of DATABASE_KINDS) {
  describe(`lipira users on ${kind}`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let other: MerchantCredentials;

    before(async () => {
      gw = await startTestGateway(kind);
      merchant = await gw.newMerchant('Chikondi Crafts');
      other = await gw.newMerchant('Other Shop');
    });
    after(() => gw.close());

    const env = () => ({ DATABASE_URL: gw.database.url, PUBLIC_BASE_URL: gw.url });
    const users = (...args: string[]) => lipira(['users', ...args], env());
    const db = () => gw.gateway.database.db;
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const auditOf = (action: string, subject: string) =>
      db().selectFrom('audit_log').selectAll().where('action', '=', action).where('subject', '=', subject).execute();
    const emailsTo = (recipient: string, kindOf: AccountEmailKind) =>
      db().selectFrom('emails').selectAll().where('recipient', '=', recipient).where('kind', '=', kindOf).execute();

    async function signedIn(email: string, code?: string): Promise<DashboardBrowser> {
      const browser = new DashboardBrowser(gw.url);
      assert.equal((await browser.signIn(email, DASHBOARD_PASSWORD, code)).location, '/dashboard');
      return browser;
    }
    const isSignedIn = async (browser: DashboardBrowser) => (await browser.get('/dashboard')).status === 200;
    /** The sign-in page's answer to a password for the address. */
    async function signInAnswer(email: string, password = DASHBOARD_PASSWORD) {
      return new DashboardBrowser(gw.url).signIn(email, password);
    }

    test('list prints every user, or a merchant’s, one a line or as JSON; never a hash or a key', async () => {
      const ownerEmail = await dashboardUser(gw, 'owner', merchant.id);
      const secret = newTotpSecret();
      const now = gw.gateway.clock.now();
      assert.ok(await enableTwoFactor(db(), await userRow(ownerEmail), secret, totpCode(secret, 0, now), now));
      const operatorEmail = await dashboardUser(gw, 'operator');
      const strangerEmail = await dashboardUser(gw, 'viewer', other.id);
      const owner = await userRow(ownerEmail);

      const all = await users('list');
      assert.equal(all.code, 0, all.stderr);
      assert.equal(all.stderr, '');
      const lines = all.stdout.trimEnd().split('\n');
      assert.ok(lines.length >= 3);
      assert.ok(
        lines.indexOf(lines.find((line) => line.includes(operatorEmail))!) <
          lines.indexOf(lines.find((line) => line.includes(ownerEmail))!),
        'operators first',
      );
      assert.ok(
        lines.includes(`${owner.id}  ${ownerEmail}  owner  ${merchant.id}  password set  two-factor on`),
        all.stdout,
      );
      assert.ok(
        lines.some((line) => line.includes(`${operatorEmail}  operator  operator  password set  two-factor off`)),
      );

      const mine = await users('list', '--merchant', merchant.id, '--json');
      assert.equal(mine.code, 0, mine.stderr);
      const listed = JSON.parse(mine.stdout) as Array<Record<string, unknown>>;
      assert.ok(listed.every((user) => user.merchant_id === merchant.id));
      assert.ok(!listed.some((user) => user.email === strangerEmail || user.email === operatorEmail));
      const row = listed.find((user) => user.email === ownerEmail)!;
      assert.deepEqual(Object.keys(row), USER_KEYS);
      assert.deepEqual([row.role, row.password_set, row.two_factor, row.disabled_at], ['owner', true, true, null]);
      assert.equal(row.created_at, new Date(owner.created_at).toISOString());
      assert.ok(!mine.stdout.includes('scrypt$') && !mine.stdout.includes(secret), 'no hash, no key');

      assertRefused(
        await users('list', '--merchant', 'mer_missing'),
        1,
        /^lipira: no merchant with id "mer_missing"$/m,
      );
      const empty = await gw.newMerchant('Empty Shop');
      assert.equal((await users('list', '--merchant', empty.id)).stdout, `Merchant ${empty.id} has no users.\n`);
      assert.deepEqual(JSON.parse((await users('list', '--merchant', empty.id, '--json')).stdout), []);
    });

    test('list read through a pipe that closes after a line: that line, nothing on stderr, status 0', async () => {
      await dashboardUser(gw, 'developer', merchant.id);
      const cwd = temporaryFolder('lipira-users-pipe-');
      try {
        const piped = await outputOf(
          spawn('sh', ['-c', '{ $LIPIRA users list --json; echo "lipira exited $?" >&2; } | head -1'], {
            cwd: cwd.dir,
            env: { ...process.env, LOG_LEVEL: 'warn', LIPIRA: `${process.execPath} ${BIN}`, ...env() },
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        );
        assert.equal(piped.stdout, '[\n');
        assert.equal(piped.stderr, 'lipira exited 0\n');
      } finally {
        cwd.remove();
      }
    });

    test('reset-password: the old password stops working, the user is signed out, the link is printed and emailed, and the command line is audited', async () => {
      const email = await dashboardUser(gw, 'developer', merchant.id);
      const browser = await signedIn(email);
      const { id } = await userRow(email);

      const reset = await users('reset-password', email.toUpperCase());
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(reset.stderr, '');
      assert.match(
        reset.stdout,
        new RegExp(
          `^Reset the password of developer ${id} <${email}> of merchant ${merchant.id}: the old one no longer works; 1 session ended\\.\\nSet-password link \\(emailed; works once, for 24 hours\\):\\n  `,
        ),
      );
      const printed = LINK.exec(reset.stdout)![0];
      assert.equal(await isSignedIn(browser), false);
      const refused = await signInAnswer(email);
      assert.equal(refused.status, 401, 'the old password is refused');
      const [mail] = await emailsTo(email, 'password_reset_notice');
      assert.ok(mail!.text_body.includes(printed), 'the printed link is the emailed one');
      assert.match(mail!.text_body, /^The gateway’s operator reset your password/);
      const [entry] = await auditOf('user.password_reset_by_other', id);
      assert.deepEqual(
        [entry?.user_id, entry?.merchant_id, JSON.parse(entry!.detail!)],
        [null, merchant.id, { email, sessions_ended: 1 }],
      );

      const json = await users('reset-password', email, '--json');
      assert.equal(json.code, 0, json.stderr);
      const answer = JSON.parse(json.stdout);
      assert.deepEqual(Object.keys(answer), [...USER_KEYS, 'set_password_link', 'sessions_ended']);
      assert.deepEqual([answer.id, answer.password_set, answer.sessions_ended], [id, false, 0]);
      assert.match(answer.set_password_link, LINK);
      const [first] = await db()
        .selectFrom('password_links')
        .select('used_at')
        .where('user_id', '=', id)
        .orderBy('created_at')
        .execute();
      assert.notEqual(first?.used_at, null, 'a new reset ends the links sent before');
    });

    test('reset-2fa: two-factor sign-in off, the user signed out and emailed, audited; their next sign-in sets it up again; refused when off already', async () => {
      const email = await dashboardUser(gw, 'owner', merchant.id);
      const secret = newTotpSecret();
      const now = gw.gateway.clock.now();
      assert.ok(await enableTwoFactor(db(), await userRow(email), secret, totpCode(secret, 0, now), now));
      const browser = await signedIn(email, totpCode(secret, 1));
      const { id } = await userRow(email);

      const reset = await users('reset-2fa', email, '--json');
      assert.equal(reset.code, 0, reset.stderr);
      const answer = JSON.parse(reset.stdout);
      assert.deepEqual([answer.two_factor, answer.sessions_ended], [false, 1]);
      assert.equal(await isSignedIn(browser), false);
      assert.equal((await userRow(email)).totp_secret, null);
      assert.equal((await emailsTo(email, 'two_factor_reset_notice')).length, 1);
      const [entry] = await auditOf('user.two_factor_reset', id);
      assert.equal(entry?.user_id, null, 'audited as the command line');
      assert.equal((await signInAnswer(email)).location, '/dashboard/settings/two-factor');

      assertRefused(await users('reset-2fa', email), 2, /has two-factor sign-in off already/);
      const operatorEmail = await dashboardUser(gw, 'operator');
      const operatorSecret = newTotpSecret();
      assert.ok(
        await enableTwoFactor(
          db(),
          await userRow(operatorEmail),
          operatorSecret,
          totpCode(operatorSecret, 0, now),
          now,
        ),
      );
      const operatorReset = await users('reset-2fa', operatorEmail);
      assert.equal(operatorReset.code, 0, operatorReset.stderr);
      assert.match(
        operatorReset.stdout,
        /^Turned off two-factor sign-in of operator usr_\w+ <[^>]+>; they had no session open\. They were emailed, and set it up again at their next sign-in\.\n$/,
        "an operator's too: the command line reaches everyone",
      );
    });

    test('disable: sign-ins refused in the words of a wrong password, sessions ended, shown as disabled on the team page; enable undoes it; both audited', async () => {
      const email = await dashboardUser(gw, 'viewer', merchant.id);
      const browser = await signedIn(email);
      const { id } = await userRow(email);
      const wrong = await signInAnswer(email, 'not the password at all');

      const disabled = await users('disable', email);
      assert.equal(disabled.code, 0, disabled.stderr);
      assert.equal(
        disabled.stdout,
        `Disabled viewer ${id} <${email}> of merchant ${merchant.id}: their sign-ins are refused; 1 session ended.\n`,
      );
      assert.equal(await isSignedIn(browser), false, 'their session has ended');
      const refused = await signInAnswer(email);
      assert.equal(refused.status, 401);
      const words = (text: string) => /<p class="error" role="alert">([^<]+)<\/p>/.exec(text)?.[1];
      assert.equal(words(refused.text), words(wrong.text), 'the right password is refused as a wrong one is');
      assert.equal((await userRow(email)).failed_logins, 1, 'and takes no attempt: only the wrong password counted');

      const owner = await signedIn(await dashboardUser(gw, 'owner', merchant.id));
      const team = await owner.get('/dashboard/settings');
      assert.ok(
        team.text.includes(`${email} <span class="status status-disabled">Disabled</span>`),
        'listed as disabled',
      );
      assertRefused(await users('disable', email), 2, /is disabled already/);
      const listed = JSON.parse((await users('list', '--merchant', merchant.id, '--json')).stdout) as Array<{
        email: string;
        disabled_at: string | null;
      }>;
      assert.match(listed.find((user) => user.email === email)!.disabled_at ?? '', /^\d{4}-\d\d-\d\dT/);

      const enabled = await users('enable', email, '--json');
      assert.equal(enabled.code, 0, enabled.stderr);
      assert.equal(JSON.parse(enabled.stdout).disabled_at, null);
      assert.equal((await signInAnswer(email)).location, '/dashboard');
      assertRefused(await users('enable', email), 2, /is not disabled/);
      const [off] = await auditOf('user.disable', id);
      const [on] = await auditOf('user.enable', id);
      assert.deepEqual([off?.user_id, JSON.parse(off!.detail!)], [null, { email, sessions_ended: 1 }]);
      assert.deepEqual([on?.user_id, on?.merchant_id], [null, merchant.id]);
      assert.match(
        withoutCellLabels((await owner.get('/dashboard/audit')).text),
        /<span class="muted">command line<\/span><\/td><td>Enabled a user<\/td>/,
      );
    });

    test('bad command lines are refused with one line: the usage, a missing or extra address, an unknown one', async () => {
      assertRefused(
        await users('frobnicate'),
        2,
        /usage: lipira users create .* \| list \[--merchant ID\] \[--json\] \| reset-password EMAIL/,
      );
      assertRefused(await users('reset-password'), 2, /^lipira: usage: lipira users reset-password EMAIL \[--json\]$/m);
      assertRefused(await users('disable', 'a@example.com', 'b@example.com'), 2, /unexpected argument "b@example.com"/);
      assertRefused(await users('enable', 'a@example.com', '--force'), 2, /unknown option --force/);
      assertRefused(
        await users('reset-2fa', 'nobody@example.com'),
        1,
        /^lipira: no user with the email "nobody@example.com"$/m,
      );
      const help = await lipira(['help'], env());
      for (const action of [
        'list [--merchant ID]',
        'reset-password EMAIL',
        'reset-2fa EMAIL',
        'disable EMAIL',
        'enable EMAIL',
      ])
        assert.ok(help.stdout.includes(`users ${action}`), action);
    });
  });
}
