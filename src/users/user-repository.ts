import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { AuditLogTable, DB, PasswordLinksTable, UserSessionsTable, UsersTable } from '../db/schema.ts';

export type User = Selectable<UsersTable>;
export type UserSession = Selectable<UserSessionsTable>;
type Db = Kysely<DB>;

export async function insertUser(trx: Db, user: Insertable<UsersTable>): Promise<boolean> {
  const inserted = await trx
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUser(db: Db, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateUser(db: Db, id: string, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Every user, or a merchant's, by merchant (operators first) then age. */
export function listUsers(db: Db, merchantId: string | null): Promise<User[]> {
  let query = db.selectFrom('users').selectAll();
  if (merchantId !== null) query = query.where('merchant_id', '=', merchantId);
  // Null sorts first on SQLite and last on PostgreSQL: the operators are put first by hand on both.
  return query
    .orderBy(sql`merchant_id is not null`)
    .orderBy('merchant_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Turns the user's two-factor sign-in off for them, remembering when (their next sign-in asks
 * them to set it up again); false when it was off already.
 */
export async function resetTotp(trx: Db, id: string, now: number): Promise<boolean> {
  const updated = await trx
    .updateTable('users')
    .set({ totp_secret: null, totp_last_step: null, two_factor_reset_at: now, updated_at: now })
    .where('id', '=', id)
    .where('totp_secret', 'is not', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Disables the user from `now`, or (null) enables them; false when they already were so. */
export async function setDisabled(trx: Db, id: string, disabledAt: number | null, now: number): Promise<boolean> {
  const updated = await trx
    .updateTable('users')
    .set({ disabled_at: disabledAt, updated_at: now })
    .where('id', '=', id)
    .where('disabled_at', disabledAt === null ? 'is not' : 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Where the user's account is not locked at `now`. */
const unlocked = (now: number) => (eb: ExpressionBuilder<DB, 'users'>) =>
  eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]);

/**
 * Takes one of the `limit` sign-in attempts an account has between locks, before its password or
 * code is judged: `failed_logins` counts the attempts not known to be right, those still being
 * judged included, and one conditional statement reads and raises it, so attempts made at once
 * each see the others. False while the account is locked or every attempt is taken. A count left
 * at the limit without a lock can only be a process's that stopped mid-attempt: it is started
 * again once the row has been left alone since `staleBefore`.
 */
export async function takeSignInAttempt(
  db: Db,
  id: string,
  limit: number,
  staleBefore: number,
  now: number,
): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set((eb) => ({
      failed_logins: eb
        .case()
        .when('failed_logins', '<', limit)
        .then(eb('failed_logins', '+', 1))
        .else(1)
        .end(),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where(unlocked(now))
    .where((eb) => eb.or([eb('failed_logins', '<', limit), eb('updated_at', '<=', staleBefore)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A right password (without a second factor): the attempts start again from none. False when a lock came first. */
export async function clearSignInAttempts(db: Db, id: string, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set({ failed_logins: 0, updated_at: now })
    .where('id', '=', id)
    .where(unlocked(now))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * A right password that still needs its code gives its attempt back (the code takes one of its
 * own), without clearing the others: knowing the password must not buy more tries at the code.
 * False when a lock came first.
 */
export async function returnSignInAttempt(db: Db, id: string, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set((eb) => ({
      failed_logins: eb
        .case()
        .when('failed_logins', '>', 0)
        .then(eb('failed_logins', '-', 1))
        .else(0)
        .end(),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where(unlocked(now))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * After a failed attempt: locks the account until `until` when every attempt is taken. Conditional
 * on the count and on no lock yet, so of the failures that find the attempts used up, one locks.
 */
export async function lockWhenAttemptsUsed(
  db: Db,
  id: string,
  limit: number,
  until: number,
  now: number,
): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set({ failed_logins: 0, locked_until: until, updated_at: now })
    .where('id', '=', id)
    .where('failed_logins', '>=', limit)
    .where(unlocked(now))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Takes a second factor's time step for the user unless it, or a later one, was taken already
 * (two sign-ins racing with the same code cannot both win), or the account was locked while the
 * code was judged; the attempts then start again from none.
 */
export async function takeTotpStep(db: Db, id: string, step: number, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set({ totp_last_step: step, failed_logins: 0, updated_at: now })
    .where('id', '=', id)
    .where(unlocked(now))
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Takes a second factor's time step for a signed-in user's own change (new recovery codes) unless
 * it, or a later one, was taken already: the same code does not make two changes.
 */
export async function advanceTotpStep(db: Db, id: string, step: number, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set({ totp_last_step: step, updated_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export async function insertSession(db: Db, session: Insertable<UserSessionsTable>): Promise<void> {
  await db.insertInto('user_sessions').values(session).execute();
}

export function findSession(db: Db, id: string): Promise<UserSession | undefined> {
  return db.selectFrom('user_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchSession(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('user_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id', '=', id).execute();
}

/** Ends every session of a user; how many there were. */
export async function deleteUserSessions(db: Db, userId: string): Promise<number> {
  const deleted = await db.deleteFrom('user_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

export async function insertPasswordLink(trx: Db, link: Insertable<PasswordLinksTable>): Promise<void> {
  await trx.insertInto('password_links').values(link).execute();
}

/** A link that still works: unused and not expired. */
export function findUsableLink(db: Db, id: string, now: number): Promise<Selectable<PasswordLinksTable> | undefined> {
  return db
    .selectFrom('password_links')
    .selectAll()
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Uses a link up, if it still works (compare-and-set: a link used twice at once works once); whose it was, and what for. */
export async function useLink(
  trx: Db,
  id: string,
  now: number,
): Promise<Pick<Selectable<PasswordLinksTable>, 'user_id' | 'purpose'> | null> {
  const row = await trx
    .updateTable('password_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'purpose'])
    .executeTakeFirst();
  return row ?? null;
}

/** Uses up every link of the user that still works: a removed member's invitation must not let them back in, nor an older email a new password. */
export async function useUpLinks(trx: Db, userId: string, now: number): Promise<void> {
  await trx
    .updateTable('password_links')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

export async function insertAuditEntry(trx: Db, entry: Insertable<AuditLogTable>): Promise<void> {
  await trx.insertInto('audit_log').values(entry).execute();
}
