import { completeCheckoutCharge, type PaymentDeps } from '../checkout/checkout-payments.ts';
import { expiredOutcome } from './bank-transfer-expiry.ts';
import type { Charge } from './charge-repository.ts';
import { completeDirectCharge } from './direct-charges.ts';
import { completePayoutCharge } from '../payouts/payout-completion.ts';
import type { Outcome } from '../connectors/provider.ts';

/** Records how any charge ended, through the story its kind belongs to. */
export function completeCharge(deps: PaymentDeps, charge: Charge, outcome: Outcome, now = Date.now()): Promise<Charge | null> {
  if (charge.session_id) return completeCheckoutCharge(deps, charge, outcome, now);
  if (charge.kind === 'payout') return completePayoutCharge(deps, charge, outcome, now);
  return completeDirectCharge(deps, charge, outcome, now);
}

/**
 * Asks the provider about a pending charge whose check time has come and records the answer;
 * the settler does this for every due charge, a status poll or a verify for the one it reads.
 */
export async function refreshCharge(deps: PaymentDeps, charge: Charge, now = Date.now()): Promise<Charge> {
  if (charge.status !== 'pending' || charge.check_at === null || charge.check_at > now) return charge;
  // A bank transfer's account that expired without a transfer ends it, whatever the provider says.
  const outcome = (await deps.providerFor(charge.mode).check(charge, now)) ?? expiredOutcome(charge, now);
  if (!outcome) return charge;
  return (await completeCharge(deps, charge, outcome, now)) ?? charge;
}
