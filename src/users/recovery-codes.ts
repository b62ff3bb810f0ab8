import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ids } from '../shared/ids.ts';
import { recordAudit } from './audit.ts';
import {
  countUnusedRecoveryCodes,
  deleteRecoveryCodes,
  insertRecoveryCodes,
  unusedRecoveryCodes,
} from './recovery-code-repository.ts';
import { tokenId } from './tokens.ts';
import { acceptedStep } from './totp.ts';
import { advanceTotpStep, type User } from './user-repository.ts';

type Db = Kysely<DB>;

/** Codes a user is given at once: each works once, in place of the authenticator's code. */
export const RECOVERY_CODE_COUNT = 10;
/**
 * Crockford's base32, lowercase: no i, l, o or u, so that a code copied by hand from paper reads
 * one way. 16 characters are 80 random bits: past the reach of guessing at five tries a
 * quarter-hour, and of an offline search through a stolen database's hashes.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 16;

/** A new code as shown to the user: four groups of four, `7k2m-q9xd-4hbn-tw3p`. */
function newRecoveryCode(): string {
  const characters = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]!);
  return characters.join('').replace(/(.{4})(?!$)/g, '$1-');
}

/**
 * A code as typed, in the form its hash was made from: case, spaces and dashes do not matter, and
 * the letters Crockford's alphabet leaves out are read as the digits they look like. Null when it
 * cannot be one of ours.
 */
function normalisedRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');
  return code.length === LENGTH && [...code].every((character) => ALPHABET.includes(character)) ? code : null;
}

/**
 * Gives the user a new set of codes in the caller's transaction, voiding every earlier one; the
 * codes themselves, which are shown once and never stored.
 */
export async function replaceRecoveryCodes(trx: Db, userId: string, now: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await deleteRecoveryCodes(trx, userId);
  await insertRecoveryCodes(
    trx,
    codes.map((code) => ({
      id: ids.recoveryCode(),
      user_id: userId,
      code_hash: tokenId(normalisedRecoveryCode(code)!),
      created_at: now,
      used_at: null,
    })),
  );
  return codes;
}

/**
 * The id of the user's unused code that `typed` is, or null. The typed code's hash is compared
 * with every unused code's in constant time, all of them whichever matches, so that neither the
 * answer's timing nor a database index tells how close a guess came.
 */
export async function matchingRecoveryCode(db: Db, userId: string, typed: string): Promise<string | null> {
  const code = normalisedRecoveryCode(typed);
  if (code === null) return null;
  const hash = Buffer.from(tokenId(code), 'hex');
  let match: string | null = null;
  for (const row of await unusedRecoveryCodes(db, userId)) {
    const stored = Buffer.from(row.code_hash, 'hex');
    if (stored.length === hash.length && timingSafeEqual(stored, hash)) match = row.id;
  }
  return match;
}

/** How many of the user's recovery codes still work. */
export function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  return countUnusedRecoveryCodes(db, userId);
}

/**
 * New recovery codes for a user with two-factor sign-in on, proven by a current code of their
 * authenticator (taken, so it cannot be used again): every earlier code stops working. Audited.
 * Null when the code is wrong.
 */
export async function regenerateRecoveryCodes(db: Db, user: User, code: string, now: number): Promise<string[] | null> {
  if (user.totp_secret === null) return null;
  const step = acceptedStep(user.totp_secret, code, user.totp_last_step, now);
  if (step === null) return null;
  return db.transaction().execute(async (trx) => {
    if (!(await advanceTotpStep(trx, user.id, step, now))) return null;
    const codes = await replaceRecoveryCodes(trx, user.id, now);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: user.id,
        action: 'user.recovery_codes_new',
        subject: user.id,
        detail: { codes: codes.length },
      },
      now,
    );
    return codes;
  });
}
