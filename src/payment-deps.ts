import { completeCheckoutCharge } from './checkout/checkout-payments.ts';
import type { Config } from './config.ts';
import { liveConnectors } from './core/live-connectors.ts';
import type { PaymentDeps } from './core/payment-deps.ts';
import { providersFor } from './core/providers.ts';
import type { Database } from './db/database.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { completeDirectCharge } from './payments/direct-charges.ts';
import { completePayoutCharge } from './payouts/payout-completion.ts';

/**
 * Everything the payment services need, from the config: the one place that knows every story a
 * charge can end through, so that core's `completeCharge` can hand a charge to its own.
 */
export function paymentDeps(
  config: Config,
  { db, transact }: Pick<Database, 'db' | 'transact'>,
  clock: Clock = systemClock,
): PaymentDeps {
  const connectors = liveConnectors(config);
  return {
    db,
    transact,
    providerFor: providersFor(config, connectors.routes, clock),
    clock,
    liveConnectors: connectors.byName,
    maxFailedAttempts: config.checkoutMaxFailedAttempts,
    payoutFeeBasisPoints: config.payoutFeeBasisPoints,
    testSettlesAtOnce: config.testSettlement === 'immediate',
    refundReturnsFee: config.refundReturnsFee,
    timeZone: config.timeZone,
    completions: { checkout: completeCheckoutCharge, direct: completeDirectCharge, payout: completePayoutCharge },
  };
}
