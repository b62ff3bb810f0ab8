import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, EmailsTable } from '../db/schema.ts';
import { claimDue, type Claimer } from '../db/leased-work.ts';
import type { Mode } from '../shared/ids.ts';

export type Email = Selectable<EmailsTable>;
/** A claimed email with the mode of the payment it tells about, which decides where a customer's receipt may go (null: no payment, a set-password link). */
export interface ClaimedEmail extends Email {
  mode: Mode | null;
}
type Db = Kysely<DB>;

/** Queues emails in the caller's transaction; one already queued for the same event and kind stays as it is. */
export async function insertEmails(trx: Db, emails: Insertable<EmailsTable>[]): Promise<void> {
  await trx
    .insertInto('emails')
    .values(emails)
    .onConflict((oc) => oc.columns(['event_id', 'kind']).doNothing())
    .execute();
}

/** Claims due emails for one worker until `now + leaseMs` (see `claimDue`). */
export function claimDueEmails(claimer: Claimer, now: number, leaseMs: number, limit: number): Promise<ClaimedEmail[]> {
  return claimDue(claimer, 'emails', { now, leaseMs, limit }, (trx, ids) =>
    trx
      .selectFrom('emails')
      .leftJoin('events', 'events.id', 'emails.event_id')
      .selectAll('emails')
      .select('events.mode')
      .where('emails.id', 'in', ids)
      .orderBy('emails.next_attempt_at')
      .execute(),
  );
}

export type TryOutcome =
  | { status: 'sent' }
  | { status: 'failed'; error: string }
  | { status: 'pending'; error: string; nextAttemptAt: number };

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
    await db
      .updateTable('emails')
      .set({ locked_until: null })
      .where('id', '=', email.id)
      .where('locked_until', '=', email.locked_until)
      .execute();
  }
}
