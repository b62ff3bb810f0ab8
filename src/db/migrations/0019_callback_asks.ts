import type { Kysely } from 'kysely';

/**
 * When a callback last made the gateway ask the provider about a pending live charge or refund
 * (epoch ms), so that callbacks, however many arrive and in however many processes, make it ask
 * at most once per window: the claim is a conditional UPDATE of this column
 * (src/payments/provider-asks.ts).
 */
export const callbackAsksMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('charges').addColumn('callback_asked_at', 'bigint').execute();
    await db.schema.alterTable('refunds').addColumn('callback_asked_at', 'bigint').execute();
  },
};
