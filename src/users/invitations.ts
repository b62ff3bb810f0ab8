import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { queueInvitationRefusedEmail } from '../emails/invitation-refused-email.ts';
import { queueSetPasswordEmail } from '../emails/set-password-email.ts';
import { findMerchant } from '../merchants/merchant-service.ts';
import { ids } from '../shared/ids.ts';
import { recordAudit } from './audit.ts';
import {
  endInvitation,
  findOpenInvitationByToken,
  findOpenInvitationTo,
  insertInvitation,
  type Invitation,
} from './invitation-repository.ts';
import { personalWords } from './password-strength.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { isWellFormedToken, newToken, tokenId } from './tokens.ts';
import { findUserByEmail, insertUser, type User } from './user-repository.ts';
import {
  holdTeam,
  isEmailAddress,
  LINK_VALID_HOURS,
  normaliseEmail,
  setPasswordUrl,
  UserError,
  type TeamRole,
} from './user-service.ts';

type Db = Kysely<DB>;

export interface NewInvitation {
  merchantId: string;
  email: string;
  role: TeamRole;
  /** Who invites. */
  actorId: string;
}

export interface InvitationChange {
  merchantId: string;
  /** Who makes the change. */
  actorId: string;
  invitationId: string;
}

/**
 * Invites someone to a merchant's team: an invitation, listed on the team page until it is
 * accepted, cancelled or expires (as a set-password link does), and audited. An address on this
 * team already, or invited by it and not yet answered, is said to be. An address with an account
 * anywhere else (another merchant's user, an operator) is invited as a new one is, so that
 * invitations tell nobody who else uses the gateway: its invitation is listed, audited, expires
 * and can be cancelled alike, but its owner is sent, instead of a link, an email saying why none
 * came. The same rows are written either way, so the answer takes as long.
 */
export async function inviteTeamMember(
  db: Db,
  config: Pick<Config, 'publicBaseUrl'>,
  invitation: NewInvitation,
  now: number,
): Promise<void> {
  const email = normaliseEmail(invitation.email);
  if (!isEmailAddress(email)) throw new UserError(`"${invitation.email}" is not an email address.`);
  const { merchantId, role, actorId } = invitation;
  await db.transaction().execute(async (trx) => {
    await holdTeam(trx, merchantId, now);
    const holder = await findUserByEmail(trx, email);
    if (holder?.merchant_id === merchantId) {
      throw new UserError(
        holder.role === 'removed'
          ? `${email} was removed from this team, and a removed member's address cannot be invited again.`
          : `${email} is already on this team.`,
      );
    }
    if (await findOpenInvitationTo(trx, merchantId, email, now))
      throw new UserError(`${email} is invited already: cancel that invitation to send another.`);
    const merchant = (await findMerchant(trx, merchantId))!;
    const token = newToken();
    const id = ids.invitation();
    const expiresAt = now + LINK_VALID_HOURS * 3_600_000;
    await insertInvitation(trx, {
      id,
      merchant_id: merchantId,
      email,
      role,
      invited_by: actorId,
      token_hash: tokenId(token),
      status: 'pending',
      created_at: now,
      expires_at: expiresAt,
      ended_at: null,
    });
    await recordAudit(
      trx,
      { merchantId, userId: actorId, action: 'user.invite', subject: id, detail: { email, role } },
      now,
    );
    if (holder)
      await queueInvitationRefusedEmail(trx, { recipient: email, merchantId, merchantName: merchant.name }, now);
    else
      await queueSetPasswordEmail(
        trx,
        {
          recipient: email,
          merchantId,
          accountOf: merchant.name,
          link: setPasswordUrl(config, token),
          validHours: LINK_VALID_HOURS,
        },
        now,
      );
  });
}

/** The invitation a link's token is for, while it is open. */
export async function invitationOf(db: Db, token: unknown, now: number): Promise<Invitation | null> {
  return isWellFormedToken(token) ? ((await findOpenInvitationByToken(db, tokenId(token), now)) ?? null) : null;
}

/**
 * Accepts an invitation from its link with the invitee's password: the user is made, on the
 * team with the role invited to, and the invitation is used up. Null when the link does not
 * open an invitation (accepted, cancelled, expired, or never issued). Refused when the address
 * has meanwhile got an account (another team's invitation accepted first, an operator's doing).
 */
export async function acceptInvitation(db: Db, token: unknown, password: string, now: number): Promise<User | null> {
  const invitation = await invitationOf(db, token, now);
  if (!invitation) return null;
  const merchant = await findMerchant(db, invitation.merchant_id);
  const problem = await passwordProblem(password, personalWords(invitation.email, merchant?.name ?? ''));
  if (problem) throw new UserError(problem);
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    if (!(await endInvitation(trx, invitation.id, 'accepted', now))) return null;
    const user: User = {
      id: ids.user(),
      merchant_id: invitation.merchant_id,
      email: invitation.email,
      role: invitation.role,
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
    if (!(await insertUser(trx, user)))
      throw new UserError(`${user.email} already has a dashboard account: sign in with it.`);
    await recordAudit(
      trx,
      {
        merchantId: user.merchant_id,
        userId: user.id,
        action: 'user.invitation_accept',
        subject: user.id,
        detail: { email: user.email, role: user.role, invitation: invitation.id },
      },
      now,
    );
    return user;
  });
}

/** Cancels an open invitation of the merchant's: its link stops working. */
export async function cancelInvitation(db: Db, change: InvitationChange, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const cancelled = await endInvitation(trx, change.invitationId, 'cancelled', now, change.merchantId);
    if (!cancelled) throw new UserError('No such invitation: it was accepted or cancelled, or it has expired.');
    await recordAudit(
      trx,
      {
        merchantId: change.merchantId,
        userId: change.actorId,
        action: 'user.invitation_cancel',
        subject: cancelled.id,
        detail: { email: cancelled.email, role: cancelled.role },
      },
      now,
    );
  });
}
