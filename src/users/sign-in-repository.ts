import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, SignInsTable } from '../db/schema.ts';

export type SignIn = Selectable<SignInsTable>;
type Db = Kysely<DB>;

export async function insertSignIn(trx: Db, signIn: Insertable<SignInsTable>): Promise<void> {
  await trx.insertInto('sign_ins').values(signIn).execute();
}

/** The user's newest sign-ins, newest first. */
export function recentSignIns(db: Db, userId: string, limit: number): Promise<SignIn[]> {
  return db
    .selectFrom('sign_ins')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Whether the user has signed in before at all, and from the browser whose cookie hashes to `browserHash`. */
export async function browsersSeen(
  trx: Db,
  userId: string,
  browserHash: string,
): Promise<{ any: boolean; this: boolean }> {
  const same = await trx
    .selectFrom('sign_ins')
    .select('id')
    .where('user_id', '=', userId)
    .where('browser_hash', '=', browserHash)
    .limit(1)
    .executeTakeFirst();
  if (same) return { any: true, this: true };
  const any = await trx.selectFrom('sign_ins').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst();
  return { any: any !== undefined, this: false };
}

/** Forgets the user's sign-ins beyond their newest `keep`. */
export async function pruneSignIns(trx: Db, userId: string, keep: number): Promise<void> {
  await trx
    .deleteFrom('sign_ins')
    .where('user_id', '=', userId)
    .where('id', 'not in', (eb) =>
      eb
        .selectFrom('sign_ins')
        .select('id')
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(keep),
    )
    .execute();
}
