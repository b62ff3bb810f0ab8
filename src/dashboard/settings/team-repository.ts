import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface TeamMember {
  id: string;
  email: string;
  role: string;
  two_factor: boolean;
  /** No password: invited, or their password reset, and the set-password link not used yet. */
  invited: boolean;
  /** Disabled from the command line: may not sign in. */
  disabled: boolean;
}

/** The merchant's team: everyone but those removed. */
function team(db: Kysely<DB>, merchantId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'totp_secret', 'password_hash', 'disabled_at'])
    .where('merchant_id', '=', merchantId)
    .where('role', '<>', 'removed');
}

const memberOf = (row: {
  id: string;
  email: string;
  role: string;
  totp_secret: string | null;
  password_hash: string | null;
  disabled_at: number | null;
}): TeamMember => ({
  id: row.id,
  email: row.email,
  role: row.role,
  two_factor: row.totp_secret !== null,
  invited: row.password_hash === null,
  disabled: row.disabled_at !== null,
});

/** The merchant's team as the settings page lists it, oldest first. */
export async function listTeam(db: Kysely<DB>, merchantId: string): Promise<TeamMember[]> {
  const rows = await team(db, merchantId).orderBy('created_at').orderBy('id').execute();
  return rows.map(memberOf);
}

/** One member of the merchant's team, as the page confirming their removal shows them. */
export async function findTeamMember(db: Kysely<DB>, merchantId: string, id: string): Promise<TeamMember | undefined> {
  const row = await team(db, merchantId).where('id', '=', id).executeTakeFirst();
  return row && memberOf(row);
}

export interface OpenInvitation {
  id: string;
  email: string;
  role: string;
  /** Who invited. */
  invited_by_email: string;
  created_at: number;
}

/** The merchant's invitations still open at `now`, with who invited. */
function openInvitations(db: Kysely<DB>, merchantId: string, now: number) {
  return db
    .selectFrom('invitations')
    .innerJoin('users', 'users.id', 'invitations.invited_by')
    .select([
      'invitations.id',
      'invitations.email',
      'invitations.role',
      'users.email as invited_by_email',
      'invitations.created_at',
    ])
    .where('invitations.merchant_id', '=', merchantId)
    .where('invitations.status', '=', 'pending')
    .where('invitations.expires_at', '>', now);
}

/** The merchant's open invitations as the team page lists them, oldest first. */
export function listOpenInvitations(db: Kysely<DB>, merchantId: string, now: number): Promise<OpenInvitation[]> {
  return openInvitations(db, merchantId, now).orderBy('invitations.created_at').orderBy('invitations.id').execute();
}

/** One of the merchant's open invitations, as its cancel page shows it. */
export function findOpenInvitation(
  db: Kysely<DB>,
  merchantId: string,
  id: string,
  now: number,
): Promise<OpenInvitation | undefined> {
  return openInvitations(db, merchantId, now).where('invitations.id', '=', id).executeTakeFirst();
}
