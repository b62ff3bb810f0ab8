import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface TeamMember {
  id: string;
  email: string;
  role: string;
  two_factor: boolean;
  /** Invited, the set-password link not used yet. */
  invited: boolean;
}

/** The merchant's team as the settings page lists it: everyone but those removed, oldest first. */
export async function listTeam(db: Kysely<DB>, merchantId: string): Promise<TeamMember[]> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'totp_secret', 'password_hash'])
    .where('merchant_id', '=', merchantId)
    .where('role', '<>', 'removed')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, email: row.email, role: row.role, two_factor: row.totp_secret !== null, invited: row.password_hash === null }));
}
