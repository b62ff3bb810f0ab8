import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { addressFailures, type AddressFailures } from '../../src/users/address-failures.ts';
import { personalWords } from '../../src/users/password-strength.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/users/passwords.ts';
import { acceptedStep, newTotpSecret } from '../../src/users/totp.ts';
import { totpCode } from '../helpers/dashboard.ts';

describe('passwords', () => {
  test('scrypt with a fresh salt each time, its parameters in the hash; only the same password verifies', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    assert.match(first, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first, second, 'salted');
    assert.equal(await verifyPassword(first, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(first, 'correct horse battery stapler'), false);
    assert.equal(
      await verifyPassword('plain text', 'plain text'),
      false,
      'a stored value of no known scheme verifies nothing',
    );
  });

  test('a hash made with other parameters still verifies: they are read from the hash', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('an older password', salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64url');
    const stored = `scrypt$1024$8$1$${salt.toString('base64url')}$${key}`;
    assert.equal(await verifyPassword(stored, 'an older password'), true);
    assert.equal(await verifyPassword(stored.replace('$1024$', '$2048$'), 'an older password'), false);
  });

  test('at least 12 characters, at most 256', async () => {
    assert.match((await passwordProblem('eleven char', []))!, /at least 12/);
    assert.equal(await passwordProblem('Kx7!mQ2@vL9z', []), null);
    assert.match((await passwordProblem('x'.repeat(257), []))!, /at most 256/);
  });

  test('common and trivially guessable passwords are refused, saying what would pass', async () => {
    const advice =
      /Choose a longer password: a few unrelated words, 12 characters or more; avoid names, dates and repeated letters\./;
    for (const weak of [
      'aaaaaaaaaaaa',
      'Password1234',
      'qwertyuiop12',
      'abcabcabcabcabc',
      '123456789012',
      'iloveyou2026',
      'password password',
      'twelve chars',
      'x'.repeat(256),
    ]) {
      const problem = await passwordProblem(weak, personalWords('owner@example.com'));
      assert.match(problem ?? '', advice, weak);
      assert.match(problem!, /^This password is too easy to guess\./);
    }
    assert.match(
      (await passwordProblem('Password1234', []))!,
      /similar to a commonly used password/,
      "the estimator's reason, when it has one",
    );
    for (const strong of ['correct horse battery staple', 'kettle violin marsh 42', 'purple cactus ferry tuesday'])
      assert.equal(await passwordProblem(strong, personalWords('owner@example.com')), null, strong);
  });

  test("the user's own address and business name make a password weak", async () => {
    assert.equal(
      await passwordProblem('mangoshop2026', personalWords('owner@example.com', 'Chikondi Crafts')),
      null,
      'strong enough for someone else',
    );
    for (const [password, email, business] of [
      ['mangoshop2026', 'owner@example.com', 'Mango Shop'],
      ['Mango Shop 2026', 'owner@example.com', 'Mango Shop'],
      ['mangoshop2026', 'owner@mangoshop.mw', ''],
      ['lipiragateway', 'owner@example.com', ''],
    ] as const) {
      assert.match(
        (await passwordProblem(password, personalWords(email, business))) ?? '',
        /too easy to guess/,
        `${password} for ${email}, ${business}`,
      );
    }
  });
});

describe('TOTP codes', () => {
  test('the code of now or a step either side is accepted, once; older steps and other text are not', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const now = Date.now();
    const step = Math.floor(now / 30_000);
    assert.equal(acceptedStep(secret, totpCode(secret, 0, now), null, now), step);
    assert.equal(acceptedStep(secret, totpCode(secret, 1, now), null, now), step + 1);
    assert.equal(acceptedStep(secret, totpCode(secret, -1, now), null, now), step - 1);
    assert.equal(acceptedStep(secret, totpCode(secret, 3, now), null, now), null, 'outside the window');
    assert.equal(acceptedStep(secret, totpCode(secret, 0, now), step, now), null, 'already used');
    assert.equal(acceptedStep(secret, totpCode(secret, 1, now), step, now), step + 1, 'a later one still works');
    assert.equal(
      acceptedStep(secret, `${totpCode(secret, 0, now).slice(0, 3)} ${totpCode(secret, 0, now).slice(3)}`, null, now),
      step,
      'spaces are ignored',
    );
    assert.equal(acceptedStep(secret, 'abcdef', null, now), null);
  });
});

describe('failed sign-ins per address', () => {
  const fail = (failures: AddressFailures, address: string, now: number) => {
    const attempt = failures.begin(address, now);
    assert.ok(attempt, `${address} may try at ${now}`);
    attempt.failed(now);
    attempt.end(now);
  };

  test('past the limit the address is refused until its window ends; other addresses are not', () => {
    const failures = addressFailures(3, 1000);
    for (let i = 0; i < 3; i++) fail(failures, '198.51.100.7', 10);
    assert.equal(failures.begin('198.51.100.7', 500), null);
    assert.ok(failures.begin('198.51.100.8', 500));
    fail(failures, '198.51.100.7', 1010);
    assert.ok(failures.begin('198.51.100.7', 1010), 'the window ended: a new one counts from one');
  });

  test('sign-ins still being judged fill the limit: a burst is refused past it before any is judged', () => {
    const failures = addressFailures(3, 1000);
    const inFlight = [1, 2, 3].map(() => failures.begin('203.0.113.9', 10));
    assert.ok(inFlight.every((attempt) => attempt !== null));
    assert.equal(failures.begin('203.0.113.9', 10), null, 'three under way: a fourth is refused at once');
    inFlight[0]!.end(20);
    const next = failures.begin('203.0.113.9', 20);
    assert.ok(next, 'a sign-in that ended without failing gives its place back');
    inFlight[1]!.failed(30);
    inFlight[1]!.end(30);
    assert.equal(failures.begin('203.0.113.9', 30), null, 'a failure keeps its place for the window');
    inFlight[2]!.end(40);
    inFlight[2]!.end(40);
    assert.ok(failures.begin('203.0.113.9', 40), 'one place is free again');
    assert.equal(failures.begin('203.0.113.9', 40), null, 'ended twice, a sign-in gives its place back once');
  });
});
