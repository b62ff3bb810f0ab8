import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CheckoutSessionsTable, DB, LogsTable } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';

export type CheckoutSession = Selectable<CheckoutSessionsTable>;
export type LogEntry = Pick<Selectable<LogsTable>, 'type' | 'message' | 'created_at'>;
type Db = Kysely<DB>;

/**
 * Inserts the session and its first log in one transaction, unless any unique key (the
 * merchant's `tx_ref`, our `reference` or token) is taken: then nothing is written and false
 * is returned. ON CONFLICT makes two concurrent creates with one `tx_ref` yield one row.
 */
export async function insertSessionIfNew(db: Db, session: Insertable<CheckoutSessionsTable>, log: Insertable<LogsTable>): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('checkout_sessions')
      .values(session)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    await trx.insertInto('logs').values(log).execute();
    return true;
  });
}

export function findSessionByTxRef(db: Db, owner: Principal, txRef: string): Promise<CheckoutSession | undefined> {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .where('tx_ref', '=', txRef)
    .executeTakeFirst();
}

export function findSessionById(db: Db, id: string): Promise<CheckoutSession | undefined> {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listLogs(db: Db, ownerId: string): Promise<LogEntry[]> {
  return db.selectFrom('logs').select(['type', 'message', 'created_at']).where('owner_id', '=', ownerId).orderBy('id').execute();
}
