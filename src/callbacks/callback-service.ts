import type { PaymentDeps } from '../core/payment-deps.ts';
import type { CallbackVerdict, Connector, IncomingCallback } from '../connectors/connector.ts';
import { refreshCharge } from '../core/charge-completion.ts';
import { findCharge, type Charge } from '../core/charge-repository.ts';
import { claimCallbackAsk } from '../core/provider-asks.ts';
import { findPendingRefundsAbout } from '../refunds/refund-repository.ts';
import { advanceRefund } from '../refunds/refund-service.ts';
import { ApiError } from '../shared/errors.ts';
import { asChargeRef } from '../shared/ids.ts';

/** What became of a callback: its record was asked about (`confirmed`), or none of ours is live and pending under its reference. */
export type CallbackResult = 'confirmed' | 'unknown';

/**
 * An operator's callback, through the one path every connector's takes: authenticated by its
 * connector (refused, with nothing changed, when it is not), then taken as a hint only. The record
 * it names is asked about with the connector's `sync`, and what that says is what gets recorded,
 * through the same completion as the settler's. So a forged, duplicated, late or out-of-order
 * callback can move no money: a duplicate finds the record already final.
 *
 * Asking costs an operator query, so a callback asks at once only when nobody asked within the
 * window (`claimCallbackAsk`), and otherwise leaves the ask to the settler at the window's end.
 * A connector's callback is only about records that connector has: one naming another's is
 * answered as an unknown reference, so that no route makes another operator answer, nor tells
 * its caller what exists.
 */
export async function receiveCallback(
  deps: PaymentDeps,
  connectorName: string,
  callback: IncomingCallback,
): Promise<CallbackResult> {
  const now = deps.clock.now();
  const connector = deps.liveConnectors.get(connectorName);
  if (!connector) throw new ApiError('routeNotFound');
  const verdict = verdictOf(() => connector.verifyCallback(callback));
  if (verdict.status === 'refused') throw new ApiError('callbackRefused');
  if (verdict.flow !== 'refund') {
    const charge = await findCharge(deps.db, asChargeRef(verdict.reference));
    // A connector whose callbacks look alike for every flow (Airtel's, for a disbursement that
    // was a payout or part of a payment given back) names a refund by its reference: one that
    // names no charge is looked for among the refunds.
    if (charge) {
      if (!isWith(deps, connector, charge)) return 'unknown';
      if (await deps.transact((trx) => claimCallbackAsk(trx, 'charges', charge.id, now)))
        await refreshCharge(deps, charge, now, { now: true });
      return 'confirmed';
    }
  }
  let confirmed = false;
  for (const refund of await findPendingRefundsAbout(deps.db, verdict.reference, 'live')) {
    if (!isWith(deps, connector, await findCharge(deps.db, refund.charge_ref))) continue;
    confirmed = true;
    if (await deps.transact((trx) => claimCallbackAsk(trx, 'refunds', refund.id, now)))
      await advanceRefund(deps, refund, now);
  }
  return confirmed ? 'confirmed' : 'unknown';
}

/** Whether a charge (or the charge a refund gives back) is a live one `connector` has. */
function isWith(deps: PaymentDeps, connector: Connector, charge: Charge | undefined): charge is Charge {
  return (
    charge !== undefined && charge.mode === 'live' && deps.providerFor('live').connectorOf(charge) === connector.name
  );
}

/** A body the connector cannot make sense of is as unauthenticated as one with a bad signature. */
function verdictOf(verify: () => CallbackVerdict): CallbackVerdict {
  try {
    return verify();
  } catch {
    return { status: 'refused', reason: 'unreadable callback' };
  }
}
