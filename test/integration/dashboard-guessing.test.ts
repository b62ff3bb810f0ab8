import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, shownTotpSecret, totpCode, type PageAnswer } from '../helpers/dashboard.ts';
import { DASHBOARD_PASSWORD, dashboardUser } from '../helpers/dashboard-pages.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { LOCK_MS, MAX_FAILED_LOGINS } from '../../src/users/sign-in.ts';

/** Guesses released together in each burst: far more than an account's or an address's allowance. */
const BURST = 100;
/** Failed sign-ins an address may make in its window (dashboard-routes.ts). */
const ADDRESS_LIMIT = 20;

interface HashCount {
  /** scrypt hashes computed in this process while the work ran. */
  all: number;
  /** Of those, the ones made with one stored hash's salt: passwords actually judged against it. */
  judged: number;
}

/**
 * Counts the scrypt hashes computed while `work` runs (the gateway runs in this process), by
 * wrapping node's own `crypto.scrypt`; the salt of `storedHash` tells the passwords judged
 * against it from the stand-in hash every refused guess costs.
 */
async function countingHashes<T>(
  storedHash: string,
  work: () => Promise<T>,
): Promise<{ result: T; hashes: HashCount }> {
  const salt = Buffer.from(storedHash.split('$')[4]!, 'base64url');
  const original = crypto.scrypt;
  const hashes: HashCount = { all: 0, judged: 0 };
  crypto.scrypt = ((password: crypto.BinaryLike, hashSalt: crypto.BinaryLike, ...rest: unknown[]) => {
    hashes.all += 1;
    if (Buffer.from(hashSalt as Buffer).equals(salt)) hashes.judged += 1;
    return (original as (...args: unknown[]) => void)(password, hashSalt, ...rest);
  }) as typeof crypto.scrypt;
  syncBuiltinESMExports();
  try {
    return { result: await work(), hashes };
  } finally {
    crypto.scrypt = original;
    syncBuiltinESMExports();
  }
}

const statuses = (answers: PageAnswer[]) =>
  answers.reduce<Record<number, number>>(
    (counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }),
    {},
  );

for (const kind of DATABASE_KINDS) {
  describe(`dashboard sign-in under a burst of guesses (${kind})`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let addresses = 0;

    before(async () => {
      // Behind a proxy, so that each burst can come from one address or from a hundred.
      gw = await startTestGateway(kind, { CLIENT_ADDRESS_HEADER: 'x-forwarded-for' });
      merchant = await gw.newMerchant('Guarded Shop');
    });
    after(() => gw.close());

    const db = () => gw.gateway.database.db;
    const userRow = (email: string) =>
      db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    const newAddress = () => `198.51.100.${++addresses}`;
    const locks = async (userId: string) =>
      (
        await db()
          .selectFrom('audit_log')
          .select('id')
          .where('action', '=', 'user.locked')
          .where('subject', '=', userId)
          .execute()
      ).length;
    const sessions = async (userId: string) =>
      (await db().selectFrom('user_sessions').select('id').where('user_id', '=', userId).execute()).length;

    /** Posts every form at once, each from the address `from` gives it; the answers in order. */
    async function burst(
      browser: DashboardBrowser,
      forms: Array<Record<string, string>>,
      from: (index: number) => string,
    ): Promise<PageAnswer[]> {
      await browser.get('/dashboard/login');
      return Promise.all(
        forms.map((form, index) =>
          browser.post('/dashboard/login', form, { headers: { 'x-forwarded-for': from(index) } }),
        ),
      );
    }

    /** BURST password forms for `email`, all wrong but the last, which is right. */
    const passwordGuesses = (email: string) =>
      Array.from({ length: BURST }, (_, i) => ({
        email,
        password: i === BURST - 1 ? DASHBOARD_PASSWORD : `wrong guess number ${i}`,
      }));

    test('a hundred passwords at once from one address: the address admits its limit and refuses the rest before hashing; the account judges five', async () => {
      const email = await dashboardUser(gw, 'owner', merchant.id);
      const user = await userRow(email);
      const address = newAddress();
      const { result: answers, hashes } = await countingHashes(user.password_hash!, () =>
        burst(new DashboardBrowser(gw.url), passwordGuesses(email), () => address),
      );
      assert.deepEqual(
        statuses(answers),
        { 401: ADDRESS_LIMIT, 429: BURST - ADDRESS_LIMIT },
        'the address is refused past its limit of guesses in flight or failed',
      );
      assert.equal(hashes.all, ADDRESS_LIMIT, 'no hash is computed for a guess the address is refused');
      assert.equal(hashes.judged, MAX_FAILED_LOGINS, 'no more passwords are judged than the account allows');
      assert.equal(await sessions(user.id), 0, 'the right password, late in the burst, did not sign in');
      assert.equal(await locks(user.id), 1, 'one lock, audited once');
      assert.ok((await userRow(email)).locked_until! > Date.now());
    });

    test('a hundred passwords at once from a hundred addresses: five are judged, the right one is refused, one lock', async () => {
      const email = await dashboardUser(gw, 'developer', merchant.id);
      const user = await userRow(email);
      const { result: answers, hashes } = await countingHashes(user.password_hash!, () =>
        burst(new DashboardBrowser(gw.url), passwordGuesses(email), newAddress),
      );
      assert.deepEqual(statuses(answers), { 401: BURST });
      assert.equal(hashes.judged, MAX_FAILED_LOGINS, 'no more passwords are judged than the account allows');
      assert.equal(
        hashes.all,
        BURST,
        'a guess refused unjudged still costs a hash: the answer takes as long as any other',
      );
      assert.equal(await sessions(user.id), 0, 'the right password, late in the burst, did not sign in');
      assert.equal(await locks(user.id), 1, 'one lock, audited once');
      const locked = await userRow(email);
      assert.ok(locked.locked_until! > Date.now());
      assert.equal(locked.failed_logins, 0);
    });

    test('a hundred two-factor codes at once for a session that gave the right password: five are judged, the right code is refused, one lock', async () => {
      const email = await dashboardUser(gw, 'viewer', merchant.id);
      const browser = new DashboardBrowser(gw.url);
      await browser.signIn(email, DASHBOARD_PASSWORD);
      const secret = shownTotpSecret(await browser.get('/dashboard/settings/two-factor'));
      assert.equal(
        (await browser.post('/dashboard/settings/two-factor', { action: 'enable', secret, code: totpCode(secret) }))
          .status,
        200,
      );
      await browser.post('/dashboard/logout', {});
      const user = await userRow(email);

      const guesser = new DashboardBrowser(gw.url);
      assert.equal((await guesser.signIn(email, DASHBOARD_PASSWORD)).location, '/dashboard/login', 'at the code step');
      const right = totpCode(secret, 1);
      const accepted = new Set([-1, 0, 1, 2].map((steps) => totpCode(secret, steps)));
      const wrong = Array.from({ length: 1000 }, (_, i) => String(100_000 + i * 7)).filter(
        (code) => !accepted.has(code),
      );
      const forms = Array.from({ length: BURST }, (_, i) => ({ code: i === BURST - 1 ? right : wrong[i]! }));
      const answers = await burst(guesser, forms, newAddress);
      assert.deepEqual(statuses(answers), { 401: BURST });
      assert.equal(
        (await guesser.get('/dashboard')).location,
        '/dashboard/login',
        'the right code, late in the burst, did not sign in',
      );
      assert.equal(await locks(user.id), 1, 'one lock, audited once');
      assert.ok((await userRow(email)).locked_until! > Date.now());
    });

    test('attempts left taken by a process that stopped while judging them hold the account for a lock’s length, no longer', async () => {
      const email = await dashboardUser(gw, 'owner', merchant.id);
      const { id } = await userRow(email);
      await db()
        .updateTable('users')
        .set({ failed_logins: MAX_FAILED_LOGINS, updated_at: Date.now() - 60_000 })
        .where('id', '=', id)
        .execute();
      const browser = new DashboardBrowser(gw.url);
      assert.equal(
        (await browser.signIn(email, DASHBOARD_PASSWORD)).status,
        401,
        'taken a minute ago: they may still be being judged',
      );
      await db()
        .updateTable('users')
        .set({ updated_at: Date.now() - LOCK_MS })
        .where('id', '=', id)
        .execute();
      assert.equal(
        (await browser.signIn(email, DASHBOARD_PASSWORD)).location,
        '/dashboard',
        'untouched for a lock’s length: the count starts again',
      );
      assert.equal((await userRow(email)).failed_logins, 0);
    });
  });
}
