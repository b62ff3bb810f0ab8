import type { Kysely } from 'kysely';

/**
 * Why a charge failed, as a machine code (`declined`, `insufficient_funds`, `wrong_pin`, …) beside
 * the merchant-facing `failure_reason`: the hosted page tells the customer what to do next from
 * the code, whatever words a provider used.
 */
export const failureCodeMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('charges').addColumn('failure_code', 'text').execute();
  },
};
