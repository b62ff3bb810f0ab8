import type { PaymentDeps } from './payment-deps.ts';
import { expiredOutcome } from './bank-transfer-expiry.ts';
import { findCharge, flagChargeForReview, type Charge } from './charge-repository.ts';
import { recordStillPending } from './provider-asks.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Outcome, Pending } from '../connectors/provider.ts';

/** Records how any charge ended, through the story its kind belongs to. */
export function completeCharge(
  deps: PaymentDeps,
  charge: Charge,
  outcome: Outcome,
  now: number,
): Promise<Charge | null> {
  if (charge.session_id) return deps.completions.checkout(deps, charge, outcome, now);
  if (charge.kind === 'payout') return deps.completions.payout(deps, charge, outcome, now);
  return deps.completions.direct(deps, charge, outcome, now);
}

/**
 * Asks the provider about a pending charge whose check time has come and records the answer;
 * the settler does this for every due charge, a status poll or a verify for the one it reads.
 * An operator's callback asks at once (`now`), whatever the check time: the callback only says
 * that something happened, and what the provider answers is what gets recorded.
 */
export async function refreshCharge(
  deps: PaymentDeps,
  charge: Charge,
  now: number,
  { now: askNow } = { now: false },
): Promise<Charge> {
  if (charge.status !== 'pending' || (!askNow && (charge.check_at === null || charge.check_at > now))) return charge;
  // A bank transfer's account that expired without a transfer ends it, whatever the provider says.
  const answer = (await deps.providerFor(charge.mode).check(charge, now)) ?? expiredOutcome(charge, now);
  if (!answer) return charge;
  if (answer.status === 'pending') return keepAsking(deps, charge, answer, now);
  return (await completeCharge(deps, charge, answer, now)) ?? charge;
}

/**
 * Records that the provider has no final answer yet, and when to ask again; the first time the
 * provider says a person should look at it, the charge is flagged for review, with a log line
 * that verification shows.
 */
async function keepAsking(deps: PaymentDeps, charge: Charge, pending: Pending, now: number): Promise<Charge> {
  await deps.transact(async (trx) => {
    await recordStillPending(trx, 'charges', charge.id, pending, now);
    if (pending.review === null || !(await flagChargeForReview(trx, charge.id, pending.review, now))) return;
    const line = `Flagged for review: ${pending.review}`;
    await addLog(trx, charge.id, line, now);
    if (charge.session_id) await addLog(trx, charge.session_id, line, now);
  });
  return (await findCharge(deps.db, charge.id)) ?? charge;
}
