import type { Kysely } from 'kysely';
import type { Charge } from '../core/charge-repository.ts';
import type { DB } from '../db/schema.ts';
import { addLog } from '../logs/log-repository.ts';

/** A refund's log on its payment: the charge's, and the checkout session's it paid, which verification shows. */
export async function logOnPayment(trx: Kysely<DB>, charge: Charge, message: string, now: number): Promise<void> {
  await addLog(trx, charge.id, message, now);
  if (charge.session_id) await addLog(trx, charge.session_id, message, now);
}
