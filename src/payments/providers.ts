import type { Kysely } from 'kysely';
import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { liveProvider } from './live-provider.ts';
import type { ProviderFor } from './provider.ts';
import { sandboxProvider } from './sandbox-provider.ts';

/** Test keys pay through the sandbox, live keys through the live connectors. */
export function providersFor(config: Config): ProviderFor {
  const sandbox = sandboxProvider({ mobileDelayMs: config.sandboxMobileDelayMs });
  const live = liveProvider();
  return (mode) => (mode === 'test' ? sandbox : live);
}

/** Everything the payment services need, from the config. */
export function paymentDeps(config: Config, db: Kysely<DB>): PaymentDeps {
  return { db, providerFor: providersFor(config), maxFailedAttempts: config.checkoutMaxFailedAttempts, payoutFeeBasisPoints: config.payoutFeeBasisPoints, timeZone: config.timeZone };
}
