import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { MAX_PASSWORD_LENGTH, NOBODY_HASH, verifyPassword } from './passwords.ts';
import { openSession, type SignedIn } from './sessions.ts';
import { countFailedLogin, deleteSession, findUserByEmail, takeTotpStep, updateUser, type User } from './user-repository.ts';
import { isEmailAddress, normaliseEmail } from './user-service.ts';
import { acceptedStep } from './totp.ts';

type Db = Kysely<DB>;

/** Failed passwords or codes in a row that lock an account… */
export const MAX_FAILED_LOGINS = 5;
/** …for this long. */
export const LOCK_MS = 15 * 60_000;

/**
 * What a sign-in step came to: refused (one answer whatever the reason, so that it tells nobody
 * which addresses have accounts or which are locked), a session needing the second factor's
 * code, or a signed-in session; with the token for the cookie.
 */
export type SignInOutcome = { outcome: 'refused' } | { outcome: 'code_needed'; token: string } | { outcome: 'signed_in'; token: string; user: User };

const isLocked = (user: User, now: number) => user.locked_until !== null && user.locked_until > now;

/**
 * The first step: email and password. A locked account is refused even with the right password,
 * and its failures are not counted further (the lock would otherwise never end for a user an
 * attacker keeps trying). An unknown address costs the same hash as a known one; text that is
 * no address is not looked up at all.
 */
export async function signInWithPassword(db: Db, email: string, password: string, now = Date.now()): Promise<SignInOutcome> {
  const address = normaliseEmail(email);
  const user = isEmailAddress(address) ? await findUserByEmail(db, address) : undefined;
  const candidate = password.slice(0, MAX_PASSWORD_LENGTH + 1);
  const matches = await verifyPassword(user?.password_hash ?? NOBODY_HASH, candidate);
  if (!user || user.password_hash === null || isLocked(user, now)) return { outcome: 'refused' };
  if (!matches) {
    await countFailure(db, user, now);
    return { outcome: 'refused' };
  }
  if (user.totp_secret !== null) return { outcome: 'code_needed', token: await openSession(db, user.id, true, now) };
  await updateUser(db, user.id, { failed_logins: 0, updated_at: now });
  return { outcome: 'signed_in', token: await openSession(db, user.id, false, now), user };
}

/**
 * The second step: the authenticator's code for a session that gave the right password. The
 * half-open session is replaced by a new one with a new token, so the token a browser held
 * before the code never becomes a signed-in one. Wrong codes count towards the lock as wrong
 * passwords do.
 */
export async function signInWithCode(db: Db, pending: SignedIn, code: string, now = Date.now()): Promise<SignInOutcome> {
  const { user, session } = pending;
  if (session.awaiting_code !== 1 || user.totp_secret === null || isLocked(user, now)) return { outcome: 'refused' };
  const step = acceptedStep(user.totp_secret, code, user.totp_last_step, now);
  if (step === null || !(await takeTotpStep(db, user.id, step, now))) {
    await countFailure(db, user, now);
    return { outcome: 'refused' };
  }
  await deleteSession(db, session.id);
  return { outcome: 'signed_in', token: await openSession(db, user.id, false, now), user };
}

/**
 * Counts a failure; the last one allowed locks the account, recorded in the audit log. Sessions
 * already open stay open: whoever guesses at an account must not be able to sign its user out.
 */
async function countFailure(db: Db, user: User, now: number): Promise<void> {
  if ((await countFailedLogin(db, user.id, now)) < MAX_FAILED_LOGINS) return;
  await db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { failed_logins: 0, locked_until: now + LOCK_MS, updated_at: now });
    await recordAudit(trx, { merchantId: user.merchant_id, userId: null, action: 'user.locked', subject: user.id, detail: { minutes: LOCK_MS / 60_000 } }, now);
  });
}
