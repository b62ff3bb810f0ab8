import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CardAuthenticationsTable, DB } from '../db/schema.ts';
import { discardUnstarted } from '../core/charge-repository.ts';
import type { ChargeRef } from '../shared/ids.ts';

export type CardAuthentication = Selectable<CardAuthenticationsTable>;
type Db = Kysely<DB>;

export async function insertCardAuthentication(
  db: Db,
  authentication: Insertable<CardAuthenticationsTable>,
): Promise<void> {
  await db.insertInto('card_authentications').values(authentication).execute();
}

export function findAuthenticationByReference(db: Db, reference: string): Promise<CardAuthentication | undefined> {
  return db.selectFrom('card_authentications').selectAll().where('reference', '=', reference).executeTakeFirst();
}

export function findAuthenticationOfCharge(db: Db, chargeRef: ChargeRef): Promise<CardAuthentication | undefined> {
  return db.selectFrom('card_authentications').selectAll().where('charge_ref', '=', chargeRef).executeTakeFirst();
}

/**
 * A wrong code the issuer refused while tries are left: the charge waits for a code again and the
 * wrong codes go up by one, both only for the one caller whose code was being confirmed. The
 * count after it, or null when the charge was not confirming a code (someone else recorded it).
 */
export async function recordWrongCode(db: Db, chargeRef: ChargeRef, now: number): Promise<number | null> {
  const reopened = await db
    .updateTable('charges')
    .set({ next_action: 'otp', check_at: null, updated_at: now })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .where('next_action', '=', 'confirming')
    .executeTakeFirst();
  if (reopened.numUpdatedRows === 0n) return null;
  const counted = await db
    .updateTable('card_authentications')
    .set((eb) => ({ wrong_codes: eb('wrong_codes', '+', 1) }))
    .where('charge_ref', '=', chargeRef)
    .returning('wrong_codes')
    .executeTakeFirstOrThrow();
  return Number(counted.wrong_codes);
}

/** Removes a card charge its provider refused at once, with its link (`discardUnstarted`: only one never taken). */
export async function discardUnstartedCard(db: Db, chargeRef: ChargeRef): Promise<void> {
  await db
    .deleteFrom('card_authentications')
    .where('charge_ref', '=', chargeRef)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('charges')
          .select('id')
          .where('id', '=', chargeRef)
          .where('status', '=', 'pending')
          .where('provider_state', 'is', null),
      ),
    )
    .execute();
  await discardUnstarted(db, chargeRef);
}
