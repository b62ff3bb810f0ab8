import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { weaknessOf } from './password-strength.ts';

/**
 * scrypt at N=2^15, r=8, p=1: 32 MiB and about 60 ms a hash on a small server. OWASP's first
 * choice (N=2^17) would take 128 MiB per sign-in, more than half the gateway's whole memory
 * budget; the parameters are kept in each stored hash, so they can be raised later and old
 * hashes still verify.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** The shortest password accepted; long passphrases are welcome, and must only be hard to guess. */
export const MIN_PASSWORD_LENGTH = 12;
/** scrypt's cost does not grow with the input, but a megabyte posted as a password need not be hashed. */
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // Room for the largest cost a stored hash may name: Node refuses anything over 32 MiB by default.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; compared in constant time. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash no password matches, verified against when nobody has the address typed: a sign-in for
 * an unknown address then takes as long as one for a known address, and does not tell them apart.
 */
export const NOBODY_HASH = [
  'scrypt',
  COST.N,
  COST.r,
  COST.p,
  randomBytes(SALT_BYTES).toString('base64url'),
  randomBytes(KEY_BYTES).toString('base64url'),
].join('$');

/**
 * Why a new password is refused, or null when it will do: its length, then how easily it is
 * guessed, given the `personal` words (personalWords) it must not be made of.
 */
export async function passwordProblem(password: string, personal: string[]): Promise<string | null> {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  return weaknessOf(password, personal);
}
