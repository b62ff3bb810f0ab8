import type { Kysely } from 'kysely';
import type { Connector } from '../connectors/connector.ts';
import type { Outcome, ProviderFor } from '../connectors/provider.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import type { Mode } from '../shared/ids.ts';
import type { Charge } from './charge-repository.ts';

export interface PaymentDeps {
  db: Kysely<DB>;
  /**
   * Where the payment stories' writes commit: on SQLite grouped with the concurrent ones (one
   * commit, one wait for the disk, and a turn of the event loop between groups); the work may
   * run more than once and must write only through the handle it is given (see `Transact`).
   */
  transact: Transact;
  providerFor: ProviderFor;
  /** Where the payment stories read the time (see `src/shared/clock.ts`). */
  clock: Clock;
  /** The live connectors by name, for their callbacks (the same instances the live provider asks). */
  liveConnectors: ReadonlyMap<string, Connector>;
  /** The failed attempt that ends a session (docs/integrate/api-reference.md#attempts-and-endings: the 3rd by default). */
  maxFailedAttempts: number;
  payoutFeeBasisPoints: number;
  /** TEST_SETTLEMENT=immediate: a test payment is credited to the main balance as it is recorded (`settlesAtOnce`). */
  testSettlesAtOnce: boolean;
  /** REFUND_RETURNS_FEE: a merchant refund gives back the payment fee's share of what it refunds. */
  refundReturnsFee: boolean;
  /** The gateway's `TIMEZONE`: receipts are written when a payment succeeds, with their times in it. */
  timeZone: string;
  /** How a charge ends in the story it belongs to; core dispatches, the stories live above it (see `src/payment-deps.ts`). */
  completions: ChargeCompletions;
}

/** Whether a successful payment of `mode` is credited straight to the main balance, settled as it is recorded. */
export const settlesAtOnce = (deps: Pick<PaymentDeps, 'testSettlesAtOnce'>, mode: Mode): boolean =>
  mode === 'test' && deps.testSettlesAtOnce;

/**
 * How long a charge recorded before its provider was asked (or a card code on its way to the
 * issuer) may go without an answer being recorded before the settler asks the provider about it:
 * only a crash in between leaves one that long.
 */
export const ANSWER_RECOVERY_MS = 60_000;

/** Records how a charge ended, with everything that follows in its story; null when it had already ended elsewhere. */
export type CompleteCharge = (
  deps: PaymentDeps,
  charge: Charge,
  outcome: Outcome,
  now: number,
) => Promise<Charge | null>;

/** One completion per story: a checkout session's attempt, a direct charge, a payout. */
export interface ChargeCompletions {
  checkout: CompleteCharge;
  direct: CompleteCharge;
  payout: CompleteCharge;
}
