import type { Kysely } from 'kysely';
import { findCharge } from '../core/charge-repository.ts';
import type { DB } from '../db/schema.ts';
import { refundableBalance, refundFromBalance, reserveRefund } from '../ledger/ledger-service.ts';
import { moneyText } from '../shared/money.ts';
import { logOnPayment } from './payment-log.ts';
import { closedReasons, withReason } from './pending-reasons.ts';
import {
  changeWaitReason,
  endWait,
  findMovableWaitingRefunds,
  findRefundRow,
  waitingBefore,
  type Refund,
} from './refund-repository.ts';
import { movementOf } from './refund-movement.ts';
import type { Transact } from '../db/group-commit.ts';
import type { Clock } from '../shared/clock.ts';

/**
 * Refunds that wait for their balance (docs/integrate/api-reference.md#refunds): why a new one
 * must wait, and how the settler moves waiting ones on once incoming money covers them.
 */

/** Why a refund waits when earlier refunds of its merchant wait: they go out first. */
export const BEHIND_EARLIER_REFUNDS =
  'Earlier refunds are waiting for the balance: this one goes out after them, when incoming money covers it.';

/** Why a refund waits when it is first in line and the balance holds less than it takes. */
export const balanceShort = (refund: Pick<Refund, 'currency' | 'amount_minor' | 'fee_returned_minor'>): string =>
  `The balance does not cover the ${moneyText(refund.currency, refundFromBalance({ amountMinor: refund.amount_minor, feeMinor: refund.fee_returned_minor }))} this refund takes from it yet: it goes out when incoming money covers it.`;

/**
 * Why a merchant refund must wait for its balance, or null when it can be reserved now. The
 * balance is read locked, so the answer holds until the transaction ends; refunds go out in the
 * order they were asked for, so one waits behind any earlier refund still waiting, whatever the
 * balance holds, and the oldest waiting refund is covered first.
 */
export async function whyWait(trx: Kysely<DB>, refund: Refund, now: number): Promise<string | null> {
  const available = await refundableBalance(trx, movementOf(refund, refund.id), now);
  if (await waitingBefore(trx, refund)) return BEHIND_EARLIER_REFUNDS;
  return available >= refundFromBalance(movementOf(refund, refund.id)) ? null : balanceShort(refund);
}

/** What moving waiting refunds on needs: the refund service's deps, named here so that the service may import this file. */
interface WaitDeps {
  db: Kysely<DB>;
  transact: Transact;
  clock: Clock;
}

/**
 * Moves waiting refunds on whose balance now covers them (the settler, every round): for each
 * merchant, mode and currency, oldest first, each goes out in a transaction of its own that reads
 * the balance locked and reserves it, so two waiting refunds are never released by the same money
 * and a request or payout deciding at the same moment waits for the answer. Only the first of a
 * line is looked at, so a later, smaller refund does not overtake one the balance cannot cover
 * yet; once first, a refund that waited behind others is told the balance is what it waits for.
 * After a refund goes out the next of its line is looked at in the same round. Answers how many
 * went out.
 */
export async function releaseCoveredRefunds(deps: WaitDeps, limit: number): Promise<number> {
  let released = 0;
  for (;;) {
    let movedOn = false;
    for (const refund of await findMovableWaitingRefunds(deps.db, BEHIND_EARLIER_REFUNDS, limit)) {
      const now = deps.clock.now();
      const outcome =
        refund.spendable >= refundFromBalance(movementOf(refund, refund.id))
          ? await releaseWaitingRefund(deps, refund, now)
          : await tellFirstInLine(deps, refund, now);
      if (outcome === 'released') released += 1;
      movedOn ||= outcome !== 'waits';
    }
    if (!movedOn) return released;
  }
}

/** `released`: the refund went out; `gone`: it no longer waits (another process moved it on); `waits`: it still waits. */
type WaitOutcome = 'released' | 'gone' | 'waits';

/**
 * A waiting refund, first in its line, that the balance seemed to cover: with the balance locked,
 * it is read again and, if it still waits, is first, and is covered, what it takes from the
 * balance is reserved and it is due to be handed to its provider at once.
 */
function releaseWaitingRefund(deps: WaitDeps, seen: Refund, now: number): Promise<WaitOutcome> {
  return deps.transact(async (trx) => {
    const available = await refundableBalance(trx, movementOf(seen, seen.id), now);
    const refund = await findRefundRow(trx, seen.id);
    if (!refund || refund.pending_reason === null) return 'gone';
    if (await waitingBefore(trx, refund, refund)) return 'waits';
    if (available < refundFromBalance(movementOf(refund, refund.id))) return 'waits';
    if (!(await endWait(trx, refund.id, refund.pending_reason, closedReasons(refund.pending_reasons, now), now)))
      return 'gone';
    await reserveRefund(trx, movementOf(refund, refund.id), now);
    const charge = (await findCharge(trx, refund.charge_ref))!;
    await logOnPayment(trx, charge, `Refund ${refund.refund_id} no longer waits: the balance covers it`, now);
    return 'released';
  });
}

/**
 * A waiting refund, first in its line, that waited behind earlier refunds, which have gone out,
 * and that the balance does not cover: its reason becomes the balance's (once).
 */
function tellFirstInLine(deps: WaitDeps, seen: Refund, now: number): Promise<WaitOutcome> {
  return deps.transact(async (trx) => {
    await refundableBalance(trx, movementOf(seen, seen.id), now);
    const refund = await findRefundRow(trx, seen.id);
    if (!refund || refund.pending_reason === null) return 'gone';
    if (refund.pending_reason !== BEHIND_EARLIER_REFUNDS || (await waitingBefore(trx, refund, refund))) return 'waits';
    const reason = balanceShort(refund);
    const change = {
      from: refund.pending_reason,
      to: reason,
      reasons: withReason(refund.pending_reasons, reason, now),
    };
    if (await changeWaitReason(trx, refund.id, change, now)) {
      const charge = (await findCharge(trx, refund.charge_ref))!;
      await logOnPayment(trx, charge, `Refund ${refund.refund_id} waits: ${reason}`, now);
    }
    return 'waits';
  });
}
