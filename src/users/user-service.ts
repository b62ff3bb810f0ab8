import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB, PasswordLinkPurpose, UserRole } from '../db/schema.ts';
import { queuePasswordResetEmail } from '../emails/password-reset-email.ts';
import { queueSetPasswordEmail } from '../emails/set-password-email.ts';
import { findMerchant } from '../merchants/merchant-service.ts';
import { ids } from '../shared/ids.ts';
import { recordAudit } from './audit.ts';
import { personalWords } from './password-strength.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { deleteRecoveryCodes } from './recovery-code-repository.ts';
import { replaceRecoveryCodes } from './recovery-codes.ts';
import {
  deleteUserSessions,
  findUsableLink,
  findUser,
  findUserByEmail,
  insertPasswordLink,
  insertUser,
  updateUser,
  useLink,
  useUpLinks,
  type User,
} from './user-repository.ts';
import { isWellFormedToken, newToken, tokenId } from './tokens.ts';
import { acceptedStep } from './totp.ts';

type Db = Kysely<DB>;

/** How long a set-password link works: a new account's, or an invitation's. */
export const LINK_VALID_HOURS = 24;
/** How long a link to reset a forgotten password works: it is asked for by whoever types the address, and lets its holder in. */
export const RESET_LINK_VALID_MINUTES = 30;
const LINK_VALID_MS: Record<PasswordLinkPurpose, number> = {
  set: LINK_VALID_HOURS * 3_600_000,
  reset: RESET_LINK_VALID_MINUTES * 60_000,
};
/** Whose dashboard an operator's account opens, as emails name it. */
const GATEWAY_ACCOUNT = 'Lipira gateway';
/** Longest an address may be (RFC 5321's path limit), and no control characters: PostgreSQL cannot even compare text holding U+0000. */
const EMAIL = /^(?=.{3,254}$)[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** A request the users' rules refuse, with the sentence to show. */
export class UserError extends Error {}

/** The address is a user's already: any merchant's, or an operator's. */
export class EmailTakenError extends UserError {}

export interface NewUser {
  /** Null for a gateway operator. */
  merchantId: string | null;
  email: string;
  role: UserRole;
  /** Without one, a one-time link to set it is made and emailed. */
  password?: string;
  /** Who creates the user; null from the command line. */
  actorId?: string | null;
}

export interface CreatedUser {
  user: User;
  /** The set-password link, when no password was given. */
  link: string | null;
}

/** Addresses are compared as typed by people: case and surrounding spaces do not matter. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Whether text (already normalised) could be anyone's address. */
export const isEmailAddress = (email: string): boolean => EMAIL.test(email);

/**
 * Creates a dashboard user, its audit entry and (without a password) its one-time link and the
 * email carrying it, in one transaction. An operator has no merchant; everyone else has one.
 */
export async function createUser(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  input: NewUser,
  now: number,
): Promise<CreatedUser> {
  const email = normaliseEmail(input.email);
  if (!isEmailAddress(email)) throw new UserError(`"${input.email}" is not an email address.`);
  if ((input.role === 'operator') !== (input.merchantId === null))
    throw new UserError('An operator belongs to no merchant; every other user belongs to one.');
  const merchant = input.merchantId === null ? null : await findMerchant(db, input.merchantId);
  if (input.merchantId !== null && !merchant) throw new UserError(`No merchant ${input.merchantId}.`);
  const problem =
    input.password === undefined
      ? null
      : await passwordProblem(input.password, personalWords(email, merchant?.name ?? ''));
  if (problem) throw new UserError(problem);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const user: User = {
    id: ids.user(),
    merchant_id: input.merchantId,
    email,
    role: input.role,
    password_hash: passwordHash,
    totp_secret: null,
    totp_last_step: null,
    failed_logins: 0,
    locked_until: null,
    disabled_at: null,
    two_factor_reset_at: null,
    created_at: now,
    updated_at: now,
  };
  return db.transaction().execute(async (trx) => {
    if (!(await insertUser(trx, user))) throw new EmailTakenError(`A user with the email ${email} already exists.`);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: input.actorId ?? null,
        action: 'user.create',
        subject: user.id,
        detail: { email, role: user.role },
      },
      now,
    );
    const link =
      passwordHash === null
        ? await issuePasswordLink(trx, config, user, merchant?.name ?? GATEWAY_ACCOUNT, 'set', now)
        : null;
    return { user, link };
  });
}

/** Whose dashboard the user's account opens, as emails name it: their merchant's, or the gateway's. */
export async function accountOf(db: Db, user: User): Promise<string> {
  const merchant = user.merchant_id === null ? null : await findMerchant(db, user.merchant_id);
  return merchant?.name ?? GATEWAY_ACCOUNT;
}

/** A new one-time link for the user, for a first password (`set`) or a forgotten one (`reset`), stored as its token's hash; the link itself. */
export async function newPasswordLink(
  trx: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  userId: string,
  purpose: PasswordLinkPurpose,
  now: number,
): Promise<string> {
  const token = newToken();
  await insertPasswordLink(trx, {
    id: tokenId(token),
    user_id: userId,
    purpose,
    expires_at: now + LINK_VALID_MS[purpose],
    used_at: null,
    created_at: now,
  });
  return setPasswordUrl(config, token);
}

/** A new one-time link for the user, queued in the email outbox in the caller's transaction; the link itself. */
async function issuePasswordLink(
  trx: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  user: User,
  accountOf: string,
  purpose: PasswordLinkPurpose,
  now: number,
): Promise<string> {
  const link = await newPasswordLink(trx, config, user.id, purpose, now);
  const email = { recipient: user.email, merchantId: user.merchant_id, accountOf, link };
  if (purpose === 'set') await queueSetPasswordEmail(trx, { ...email, validHours: LINK_VALID_HOURS }, now);
  else await queuePasswordResetEmail(trx, { ...email, validMinutes: RESET_LINK_VALID_MINUTES }, now);
  return link;
}

/**
 * Someone typed an address on the "Forgot your password?" page. When it is an account's that is
 * not removed, a link to choose a new password is emailed (valid RESET_LINK_VALID_MINUTES, once),
 * and the request audited; for any other text nothing happens. The caller answers the same
 * whichever it was, before this runs, so neither its words nor its timing tell who has an account.
 */
export async function requestPasswordReset(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  email: string,
  now: number,
): Promise<void> {
  const address = normaliseEmail(email);
  const user = isEmailAddress(address) ? await findUserByEmail(db, address) : undefined;
  if (!user || user.role === 'removed') return;
  const name = await accountOf(db, user);
  await db.transaction().execute(async (trx) => {
    await issuePasswordLink(trx, config, user, name, 'reset', now);
    await recordAudit(
      trx,
      { merchantId: user.merchant_id, userId: null, action: 'user.password_reset_request', subject: user.id },
      now,
    );
  });
}

/** The page a set-password link or an invitation's token opens. */
export const setPasswordUrl = (config: Pick<Config, 'publicBaseUrl'>, token: string): string =>
  `${config.publicBaseUrl}/dashboard/set-password?token=${token}`;

/** The user a password link is for, and what it was sent for, while it still works. */
export async function passwordLinkOf(
  db: Db,
  token: unknown,
  now: number,
): Promise<{ user: User; purpose: PasswordLinkPurpose } | null> {
  if (!isWellFormedToken(token)) return null;
  const link = await findUsableLink(db, tokenId(token), now);
  const user = link && (await findUser(db, link.user_id));
  return user ? { user, purpose: link.purpose } : null;
}

/**
 * Sets the password a link was sent for, and uses the link up, with every other link of the
 * user's: an older email must not set the password again. Every session the user had is ended:
 * whoever knew the old password is signed out. A lock from failed sign-ins is lifted. Audited as
 * what the link was for. Null when the link does not work (used, expired, or never issued).
 */
export async function setPasswordWithLink(db: Db, token: unknown, password: string, now: number): Promise<User | null> {
  if (!isWellFormedToken(token)) return null;
  const owner = (await passwordLinkOf(db, token, now))?.user;
  if (!owner) return null;
  const merchant = owner.merchant_id === null ? null : await findMerchant(db, owner.merchant_id);
  const problem = await passwordProblem(password, personalWords(owner.email, merchant?.name ?? ''));
  if (problem) throw new UserError(problem);
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const link = await useLink(trx, tokenId(token), now);
    if (!link) return null;
    const userId = link.user_id;
    await useUpLinks(trx, userId, now);
    await updateUser(trx, userId, {
      password_hash: passwordHash,
      failed_logins: 0,
      locked_until: null,
      updated_at: now,
    });
    const ended = await deleteUserSessions(trx, userId);
    const user = (await findUser(trx, userId))!;
    await recordAudit(
      trx,
      link.purpose === 'reset'
        ? {
            merchantId: user.merchant_id,
            userId,
            action: 'user.password_reset',
            subject: userId,
            detail: { sessions_ended: ended },
          }
        : { merchantId: user.merchant_id, userId, action: 'user.password_set', subject: userId },
      now,
    );
    return user;
  });
}

/**
 * Turns two-factor sign-in on with a secret the user's app now holds, proven by one of its codes,
 * and gives the user their recovery codes; the codes, to be shown once. Null when the code is
 * wrong (the secret is then not kept).
 */
export async function enableTwoFactor(
  db: Db,
  user: User,
  secret: string,
  code: string,
  now: number,
): Promise<string[] | null> {
  if (user.totp_secret !== null) return null;
  const step = acceptedStep(secret, code, null, now);
  if (step === null) return null;
  return db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { totp_secret: secret, totp_last_step: step, updated_at: now });
    const codes = await replaceRecoveryCodes(trx, user.id, now);
    await recordAudit(
      trx,
      { merchantId: user.merchant_id, userId: user.id, action: 'user.two_factor_on', subject: user.id },
      now,
    );
    return codes;
  });
}

/** Turns two-factor sign-in off, proven by a current code, and deletes the recovery codes. False when the code is wrong. */
export async function disableTwoFactor(db: Db, user: User, code: string, now: number): Promise<boolean> {
  if (user.totp_secret === null || acceptedStep(user.totp_secret, code, user.totp_last_step, now) === null)
    return false;
  await db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { totp_secret: null, totp_last_step: null, updated_at: now });
    await deleteRecoveryCodes(trx, user.id);
    await recordAudit(
      trx,
      { merchantId: user.merchant_id, userId: user.id, action: 'user.two_factor_off', subject: user.id },
      now,
    );
  });
  return true;
}

/** Ends every session of the user, on every browser. */
export async function signOutEverywhere(db: Db, user: User, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const ended = await deleteUserSessions(trx, user.id);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: user.id,
        action: 'user.signed_out_everywhere',
        subject: user.id,
        detail: { sessions: ended },
      },
      now,
    );
  });
}

/** The roles a merchant's team members may have. */
export const TEAM_ROLES = ['owner', 'developer', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export interface TeamChange {
  merchantId: string;
  /** Who makes the change. */
  actorId: string;
  userId: string;
}

/**
 * Makes the transaction's later changes to a merchant's team wait for any other transaction
 * changing it: the merchant's row is written first (a row lock on PostgreSQL, the write lock on
 * SQLite). Checks made after it (the last owner, an invitation already open) then hold.
 */
export async function holdTeam(trx: Db, merchantId: string, now: number): Promise<void> {
  await trx.updateTable('merchants').set({ updated_at: now }).where('id', '=', merchantId).execute();
}

/**
 * Gives a team member another role, or takes them off the team (`removed`: no password, no
 * working link, no session; the row stays for the audit log). Refused when it would leave the
 * merchant without an owner; concurrent team changes wait for each other (holdTeam), so two
 * owners demoting each other at once cannot both pass the last-owner check.
 * Whether anything changed: a member given the role they have is left as they are, unaudited.
 */
export async function changeTeamMember(
  db: Db,
  change: TeamChange,
  to: TeamRole | 'removed',
  now: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await holdTeam(trx, change.merchantId, now);
    const user = await findUser(trx, change.userId);
    if (!user || user.merchant_id !== change.merchantId || user.role === 'removed' || user.role === 'operator')
      throw new UserError('No such team member.');
    if (user.role === to) return false;
    if (user.role === 'owner' && to !== 'owner') {
      const owners = await trx
        .selectFrom('users')
        .select('id')
        .where('merchant_id', '=', change.merchantId)
        .where('role', '=', 'owner')
        .execute();
      if (owners.length <= 1)
        throw new UserError(`${user.email} is the account's last owner: make someone else an owner first.`);
    }
    if (to === 'removed') {
      await updateUser(trx, user.id, {
        role: 'removed',
        password_hash: null,
        totp_secret: null,
        totp_last_step: null,
        updated_at: now,
      });
      await useUpLinks(trx, user.id, now);
      await deleteRecoveryCodes(trx, user.id);
      const ended = await deleteUserSessions(trx, user.id);
      await recordAudit(
        trx,
        {
          merchantId: change.merchantId,
          userId: change.actorId,
          action: 'user.remove',
          subject: user.id,
          detail: { email: user.email, role: user.role, sessions_ended: ended },
        },
        now,
      );
    } else {
      await updateUser(trx, user.id, { role: to, updated_at: now });
      await recordAudit(
        trx,
        {
          merchantId: change.merchantId,
          userId: change.actorId,
          action: 'user.role_change',
          subject: user.id,
          detail: { email: user.email, from: user.role, to },
        },
        now,
      );
    }
    return true;
  });
}
