import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { queueRecoveryCodeUsedEmail } from '../emails/recovery-code-used-email.ts';
import { recordAudit } from './audit.ts';
import { MAX_PASSWORD_LENGTH, NOBODY_HASH, verifyPassword } from './passwords.ts';
import { useRecoveryCode } from './recovery-code-repository.ts';
import { matchingRecoveryCode, recoveryCodesLeft } from './recovery-codes.ts';
import { openSession, type SignedIn } from './sessions.ts';
import {
  clearSignInAttempts,
  deleteSession,
  findUserByEmail,
  lockWhenAttemptsUsed,
  returnSignInAttempt,
  takeSignInAttempt,
  takeTotpStep,
  type User,
} from './user-repository.ts';
import { accountOf, isEmailAddress, normaliseEmail } from './user-service.ts';
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
export type SignInOutcome =
  | { outcome: 'refused' }
  | { outcome: 'code_needed'; token: string }
  | { outcome: 'signed_in'; token: string; user: User };

const REFUSED: SignInOutcome = { outcome: 'refused' };

/**
 * The first step: email and password. Every password judged has first taken one of the
 * account's attempts (takeSignInAttempt), so however many arrive at once, at most
 * MAX_FAILED_LOGINS are judged before the account locks; a locked account is refused even with
 * the right password, and its failures are not counted further (the lock would otherwise never
 * end for a user an attacker keeps trying). A password judged right is refused too if the
 * account locked while it was hashed. A guess not judged (an unknown address, a locked account,
 * its attempts all taken) costs the same hash as one judged, so the answer's timing tells nobody
 * which addresses have accounts or which are locked; text that is no address is not looked up.
 * A disabled account is refused before any attempt is taken, as an unknown address is.
 */
export async function signInWithPassword(db: Db, email: string, password: string, now: number): Promise<SignInOutcome> {
  const address = normaliseEmail(email);
  const found = isEmailAddress(address) ? await findUserByEmail(db, address) : undefined;
  // A disabled user is refused as an unknown address is: the same words, the same hash's time.
  const user = found?.password_hash && found.disabled_at === null && (await takeAttempt(db, found, now)) ? found : null;
  const matches = await verifyPassword(user?.password_hash ?? NOBODY_HASH, password.slice(0, MAX_PASSWORD_LENGTH + 1));
  if (!user) return REFUSED;
  if (!matches) return failed(db, user, now);
  if (user.totp_secret !== null)
    return (await returnSignInAttempt(db, user.id, now))
      ? { outcome: 'code_needed', token: await openSession(db, user.id, now, { awaitingCode: true }) }
      : REFUSED;
  if (!(await clearSignInAttempts(db, user.id, now))) return REFUSED;
  return { outcome: 'signed_in', token: await openSession(db, user.id, now, { awaitingCode: false }), user };
}

/**
 * The second step: the authenticator's code for a session that gave the right password. The
 * half-open session is replaced by a new one with a new token, so the token a browser held
 * before the code never becomes a signed-in one. A code takes an attempt as a password does, and
 * a wrong one counts towards the lock.
 */
export async function signInWithCode(db: Db, pending: SignedIn, code: string, now: number): Promise<SignInOutcome> {
  const { user, session } = pending;
  if (session.awaiting_code !== 1 || user.totp_secret === null || !(await takeAttempt(db, user, now))) return REFUSED;
  const step = acceptedStep(user.totp_secret, code, user.totp_last_step, now);
  if (step === null || !(await takeTotpStep(db, user.id, step, now))) return failed(db, user, now);
  await deleteSession(db, session.id);
  return { outcome: 'signed_in', token: await openSession(db, user.id, now, { awaitingCode: false }), user };
}

/** The code was used by a sign-in racing this one, or the account locked while it was judged: nothing of this one is kept. */
class RecoveryRefusedMeanwhile extends Error {}

/**
 * The second step with a recovery code in place of the authenticator's: it takes an attempt and
 * counts towards the lock as a wrong code does. A right one is used up (once, however many
 * sign-ins race with it), and in the same transaction the attempts start again from none, the
 * use is audited, and the user is emailed how many codes are left; then the half-open session is
 * replaced as for a code.
 */
export async function signInWithRecoveryCode(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  pending: SignedIn,
  typed: string,
  now: number,
): Promise<SignInOutcome> {
  const { user, session } = pending;
  if (session.awaiting_code !== 1 || user.totp_secret === null || !(await takeAttempt(db, user, now))) return REFUSED;
  const codeId = await matchingRecoveryCode(db, user.id, typed);
  if (codeId === null) return failed(db, user, now);
  const name = await accountOf(db, user);
  try {
    const token = await db.transaction().execute(async (trx) => {
      if (!(await useRecoveryCode(trx, codeId, now)) || !(await clearSignInAttempts(trx, user.id, now)))
        throw new RecoveryRefusedMeanwhile();
      const left = await recoveryCodesLeft(trx, user.id);
      await recordAudit(
        trx,
        {
          merchantId: user.merchant_id,
          userId: user.id,
          action: 'user.recovery_code_used',
          subject: user.id,
          detail: { codes_left: left },
        },
        now,
      );
      await queueRecoveryCodeUsedEmail(
        trx,
        {
          recipient: user.email,
          merchantId: user.merchant_id,
          accountOf: name,
          left,
          twoFactorPage: `${config.publicBaseUrl}/dashboard/settings/two-factor`,
        },
        now,
      );
      await deleteSession(trx, session.id);
      return openSession(trx, user.id, now, { awaitingCode: false });
    });
    return { outcome: 'signed_in', token, user };
  } catch (error) {
    if (!(error instanceof RecoveryRefusedMeanwhile)) throw error;
    return failed(db, user, now);
  }
}

const takeAttempt = (db: Db, user: User, now: number) =>
  takeSignInAttempt(db, user.id, MAX_FAILED_LOGINS, now - LOCK_MS, now);

/**
 * A wrong password or code, already counted when its attempt was taken. The failure that finds
 * every attempt used locks the account, recorded in the audit log once. Sessions already open
 * stay open: whoever guesses at an account must not be able to sign its user out.
 */
async function failed(db: Db, user: User, now: number): Promise<SignInOutcome> {
  await db.transaction().execute(async (trx) => {
    if (!(await lockWhenAttemptsUsed(trx, user.id, MAX_FAILED_LOGINS, now + LOCK_MS, now))) return;
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: null,
        action: 'user.locked',
        subject: user.id,
        detail: { minutes: LOCK_MS / 60_000 },
      },
      now,
    );
  });
  return REFUSED;
}
