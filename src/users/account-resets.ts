import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { queuePasswordResetEmail, queueTwoFactorResetEmail } from '../emails/account-notice-email.ts';
import { recordAudit, type AuditAction } from './audit.ts';
import {
  deleteUserSessions,
  findUser,
  resetTotp,
  setDisabled,
  updateUser,
  useUpLinks,
  type User,
} from './user-repository.ts';
import { accountOf, LINK_VALID_HOURS, newPasswordLink, UserError } from './user-service.ts';

type Db = Kysely<DB>;

/**
 * Who resets someone else's sign-in, and whom they may reach: an owner their own team's members,
 * the operator a merchant's users from that merchant's page (neither ever themself, nor an
 * operator, who belongs to no merchant), the command line anyone.
 */
export interface Resetter {
  /** The signed-in user resetting; null from the command line. */
  actor: User | null;
  /** The merchant whose members the reset may reach; null for every user (the command line). */
  merchantId: string | null;
}

export interface ResetDone {
  /** The user as they were before the reset. */
  user: User;
  sessionsEnded: number;
}

export interface PasswordResetDone extends ResetDone {
  /** The new set-password link, also emailed to the user. */
  link: string;
}

/** The user a reset may reach, as `by` is allowed; refused with the sentence to show otherwise. */
export async function userToReset(db: Db, by: Resetter, userId: string): Promise<User> {
  const user = await findUser(db, userId);
  if (!user || user.role === 'removed' || (by.merchantId !== null && user.merchant_id !== by.merchantId))
    throw new UserError(by.merchantId === null ? 'No such user.' : 'No such team member.');
  if (by.actor?.id === user.id)
    throw new UserError('This is your own account: another owner, or the gateway’s operator, can reset it for you.');
  return user;
}

const nothingToReset = (user: User) =>
  new UserError(`${user.email} has two-factor sign-in off already: there is nothing to reset.`);

/** The user whose two-factor sign-in a reset may turn off, as userToReset; refused when it is off already. */
export async function twoFactorToReset(db: Db, by: Resetter, userId: string): Promise<User> {
  const user = await userToReset(db, by, userId);
  if (user.totp_secret === null) throw nothingToReset(user);
  return user;
}

/** Ends every session of the reset user and audits the reset as the resetter's, with how many ended. */
async function endSessionsAudited(
  trx: Db,
  by: Resetter,
  user: User,
  action: AuditAction,
  now: number,
): Promise<number> {
  const sessionsEnded = await deleteUserSessions(trx, user.id);
  await recordAudit(
    trx,
    {
      merchantId: user.merchant_id,
      userId: by.actor?.id ?? null,
      action,
      subject: user.id,
      detail: { email: user.email, sessions_ended: sessionsEnded },
    },
    now,
  );
  return sessionsEnded;
}

/** Who made a reset, as the email to its user says it. */
function byWords(by: Resetter, account: string): string {
  if (by.actor === null || by.actor.role === 'operator') return 'The gateway’s operator';
  return `${by.actor.email}, an owner of ${account},`;
}

/**
 * Turns off another user's two-factor sign-in (their authenticator lost, a phone replaced): their
 * next sign-in takes the password alone and sends them to set it up again. Every session of theirs
 * ends, the change is audited as the resetter's, and the user is emailed that it happened. Refused
 * when two-factor sign-in is off already.
 */
export async function resetTwoFactor(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  by: Resetter,
  userId: string,
  now: number,
): Promise<ResetDone> {
  return db.transaction().execute(async (trx) => {
    const user = await userToReset(trx, by, userId);
    if (!(await resetTotp(trx, user.id, now))) throw nothingToReset(user);
    const sessionsEnded = await endSessionsAudited(trx, by, user, 'user.two_factor_reset', now);
    const account = await accountOf(trx, user);
    await queueTwoFactorResetEmail(
      trx,
      {
        recipient: user.email,
        merchantId: user.merchant_id,
        accountOf: account,
        by: byWords(by, account),
        signInUrl: `${config.publicBaseUrl}/dashboard/login`,
      },
      now,
    );
    return { user, sessionsEnded };
  });
}

/**
 * Resets another user's password: the one they had stops working, as does any set-password link
 * sent before, and a new link (the set-password link, valid LINK_VALID_HOURS) is emailed to them
 * with the reason. Every session of theirs ends; the change is audited as the resetter's.
 */
export async function resetPassword(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  by: Resetter,
  userId: string,
  now: number,
): Promise<PasswordResetDone> {
  return db.transaction().execute(async (trx) => {
    const user = await userToReset(trx, by, userId);
    await updateUser(trx, user.id, { password_hash: null, updated_at: now });
    await useUpLinks(trx, user.id, now);
    const link = await newPasswordLink(trx, config, user.id, 'set', now);
    const sessionsEnded = await endSessionsAudited(trx, by, user, 'user.password_reset_by_other', now);
    const account = await accountOf(trx, user);
    await queuePasswordResetEmail(
      trx,
      {
        recipient: user.email,
        merchantId: user.merchant_id,
        accountOf: account,
        by: byWords(by, account),
        hadPassword: user.password_hash !== null,
        link,
        validHours: LINK_VALID_HOURS,
      },
      now,
    );
    return { user, link, sessionsEnded };
  });
}

/**
 * Disables a user from the command line: every sign-in of theirs is refused (in the words of a
 * wrong password) and every session ends, until they are enabled again. Nothing else of the
 * account changes. Refused when they are disabled already.
 */
export async function disableUser(db: Db, userId: string, now: number): Promise<ResetDone> {
  return db.transaction().execute(async (trx) => {
    const user = await userToReset(trx, { actor: null, merchantId: null }, userId);
    if (!(await setDisabled(trx, user.id, now, now))) throw new UserError(`${user.email} is disabled already.`);
    const sessionsEnded = await deleteUserSessions(trx, user.id);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: null,
        action: 'user.disable',
        subject: user.id,
        detail: { email: user.email, sessions_ended: sessionsEnded },
      },
      now,
    );
    return { user, sessionsEnded };
  });
}

/** Lets a disabled user sign in again, from the command line. Refused when they are not disabled. */
export async function enableUser(db: Db, userId: string, now: number): Promise<User> {
  return db.transaction().execute(async (trx) => {
    const user = await userToReset(trx, { actor: null, merchantId: null }, userId);
    if (!(await setDisabled(trx, user.id, null, now))) throw new UserError(`${user.email} is not disabled.`);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: null,
        action: 'user.enable',
        subject: user.id,
        detail: { email: user.email },
      },
      now,
    );
    return user;
  });
}
