import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import type { Config } from '../config.ts';
import { liveConnectors } from '../connectors/live-connectors.ts';
import { providersFor } from '../connectors/providers.ts';
import type { Database } from '../db/database.ts';

/** Everything the payment services need, from the config. */
export function paymentDeps(config: Config, { db, transact }: Pick<Database, 'db' | 'transact'>): PaymentDeps {
  const connectors = liveConnectors(config);
  return {
    db,
    transact,
    providerFor: providersFor(config, connectors.routes),
    liveConnectors: connectors.byName,
    maxFailedAttempts: config.checkoutMaxFailedAttempts,
    payoutFeeBasisPoints: config.payoutFeeBasisPoints,
    timeZone: config.timeZone,
  };
}
