import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, InvitationsTable } from '../db/schema.ts';

export type Invitation = Selectable<InvitationsTable>;
type Db = Kysely<DB>;

export async function insertInvitation(trx: Db, invitation: Insertable<InvitationsTable>): Promise<void> {
  await trx.insertInto('invitations').values(invitation).execute();
}

/** The merchant's invitation to an address that is still open at `now`, if any. */
export function findOpenInvitationTo(
  db: Db,
  merchantId: string,
  email: string,
  now: number,
): Promise<Invitation | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('email', '=', email)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** The invitation a link's token is for, while it is open. */
export function findOpenInvitationByToken(db: Db, tokenHash: string, now: number): Promise<Invitation | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Ends an open invitation as accepted or cancelled (compare-and-set: of two ends at once, one
 * wins); the invitation as it was, or undefined when it was not open. `merchantId`, when given,
 * must be the invitation's.
 */
export async function endInvitation(
  trx: Db,
  id: string,
  status: 'accepted' | 'cancelled',
  now: number,
  merchantId?: string,
): Promise<Invitation | undefined> {
  let query = trx
    .updateTable('invitations')
    .set({ status, ended_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now);
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  return query.returningAll().executeTakeFirst();
}
