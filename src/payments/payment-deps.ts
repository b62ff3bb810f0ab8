import type { Kysely } from 'kysely';
import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import type { Config } from '../config.ts';
import { liveConnectors } from '../connectors/live-connectors.ts';
import { providersFor } from '../connectors/providers.ts';
import type { DB } from '../db/schema.ts';

/** Everything the payment services need, from the config. */
export function paymentDeps(config: Config, db: Kysely<DB>): PaymentDeps {
  const connectors = liveConnectors(config);
  return {
    db,
    providerFor: providersFor(config, connectors.routes),
    liveConnectors: connectors.byName,
    maxFailedAttempts: config.checkoutMaxFailedAttempts,
    payoutFeeBasisPoints: config.payoutFeeBasisPoints,
    timeZone: config.timeZone,
  };
}
