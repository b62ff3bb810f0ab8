import { toMajor } from '../shared/money.ts';
import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import type { RefundWithCharge } from './refund-repository.ts';

/** A refund as merchants read it (docs/integrate/api-reference.md#refunds), on the API and the command line. */
export function refundView(refund: RefundWithCharge) {
  return {
    refund_id: refund.refund_id,
    charge_id: refund.charge_id,
    amount: toMajor(refund.amount_minor),
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    pending_reason: refund.pending_reason,
    trans_id: refund.trans_id,
    created_at: formatTimestamp(refund.created_at),
    completed_at: formatNullableTimestamp(refund.completed_at),
  };
}
