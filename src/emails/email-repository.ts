import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB, EmailsTable } from '../db/schema.ts';
import type { Dialect } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';

export type Email = Selectable<EmailsTable>;
type Db = Kysely<DB>;

/** Queues emails in the caller's transaction; one already queued for the same event and kind stays as it is. */
export async function insertEmails(trx: Db, emails: Insertable<EmailsTable>[]): Promise<void> {
  await trx
    .insertInto('emails')
    .values(emails)
    .onConflict((oc) => oc.columns(['event_id', 'kind']).doNothing())
    .execute();
}

/** Pending ids due by `now` whose claim has lapsed by then (or that none holds). */
function dueEmails(db: Db, now: number, lockLapsedBy: number) {
  return db
    .selectFrom('emails')
    .select('id')
    .where('status', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', lockLapsedBy)]));
}

const aDueEmail = prepared((db, now: number, lockLapsedBy: number) => dueEmails(db, now, lockLapsedBy).limit(sql.lit(1)));

/**
 * Claims due emails for one worker until `now + leaseMs`. On PostgreSQL, FOR UPDATE SKIP
 * LOCKED lets several processes claim side by side without taking the same row; the lease then
 * keeps the row theirs while they send, and lapses if they crash.
 */
export async function claimDueEmails(db: Db, dialect: Dialect, now: number, leaseMs: number, limit: number): Promise<Email[]> {
  // Most rounds find nothing: asking first, with no transaction, makes an idle round one read.
  if ((await aDueEmail(db, now, now)).length === 0) return [];
  return db.transaction().execute(async (trx) => {
    let due = dueEmails(trx, now, now)
      .orderBy('next_attempt_at')
      .limit(limit);
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    const claimed = (await due.execute()).map((row) => row.id);
    if (claimed.length === 0) return [];
    await trx.updateTable('emails').set({ locked_until: now + leaseMs }).where('id', 'in', claimed).execute();
    return trx.selectFrom('emails').selectAll().where('id', 'in', claimed).orderBy('next_attempt_at').execute();
  });
}

export type TryOutcome = { status: 'sent' } | { status: 'failed'; error: string } | { status: 'pending'; error: string; nextAttemptAt: number };

/** Records one try, if the worker still holds the claim it sent under. */
export async function recordTry(db: Db, email: Email, outcome: TryOutcome, now: number): Promise<void> {
  await db
    .updateTable('emails')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : email.next_attempt_at,
      locked_until: null,
      last_error: outcome.status === 'sent' ? null : outcome.error,
      sent_at: outcome.status === 'sent' ? now : null,
    }))
    .where('id', '=', email.id)
    .where('locked_until', '=', email.locked_until)
    .execute();
}

/** Gives back claims a stopping worker will not use, so another process need not wait for them to lapse. */
export async function releaseEmails(db: Db, emails: Email[]): Promise<void> {
  for (const email of emails) {
    await db.updateTable('emails').set({ locked_until: null }).where('id', '=', email.id).where('locked_until', '=', email.locked_until).execute();
  }
}
