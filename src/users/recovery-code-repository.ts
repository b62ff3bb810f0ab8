import type { Insertable, Kysely } from 'kysely';
import type { DB, RecoveryCodesTable } from '../db/schema.ts';

type Db = Kysely<DB>;

export async function insertRecoveryCodes(trx: Db, codes: Insertable<RecoveryCodesTable>[]): Promise<void> {
  await trx.insertInto('recovery_codes').values(codes).execute();
}

/** Deletes every recovery code of the user, used or not. */
export async function deleteRecoveryCodes(trx: Db, userId: string): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** The user's codes that still work, as their ids and hashes. */
export function unusedRecoveryCodes(db: Db, userId: string): Promise<Array<{ id: string; code_hash: string }>> {
  return db
    .selectFrom('recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const { count } = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Uses a code up, if nobody did first (compare-and-set: a code typed in two sign-ins at once works once). */
export async function useRecoveryCode(trx: Db, id: string, now: number): Promise<boolean> {
  const updated = await trx
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
