import type { Config } from './config.ts';
import type { PaymentDeps } from './core/payment-deps.ts';
import type { Database } from './db/database.ts';
import type { EventHub } from './events/event-hub.ts';
import type { Lifecycle } from './health/health-routes.ts';
import type { Clock } from './shared/clock.ts';

/**
 * What one gateway process runs on, built once where the process starts (`startGateway`). Every
 * feature's routes are registered with it; each feature declares the narrow part it reads as its
 * own parameter type, so it needs nothing from this module and stays below it.
 */
export interface GatewayContext {
  config: Config;
  database: Database;
  /** The payment services' dependencies, over the same database and clock. */
  payments: PaymentDeps;
  clock: Clock;
  lifecycle: Lifecycle;
  /** The one reader of new events that every open event stream listens through. */
  events: EventHub;
}
