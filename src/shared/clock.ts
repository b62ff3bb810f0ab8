/**
 * Where the gateway reads business time: when a charge was created, when a session expires, when
 * a refund is due to be asked about. Services read it from the dependencies they are given
 * (`PaymentDeps.clock`, the process's `GatewayContext`), not from `Date.now()` hidden in a
 * default parameter, so a test can hold time still or move it on. A function handed `now` keeps
 * it: a caller that captured one instant passes it down, and the whole story is told at that
 * instant.
 *
 * Durations are not business time: worker loops timing their sleeps, waits with a deadline, the
 * server timing a request, rate limit windows keep `Date.now()` or `performance.now()`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as `Date.now()`. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
