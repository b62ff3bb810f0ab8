import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import type { Attempt, Delivery } from '../events/delivery-repository.ts';

export function deliverySummary(delivery: Delivery) {
  return {
    id: delivery.id,
    event_type: delivery.event_type,
    tx_ref: delivery.tx_ref,
    charge_id: delivery.charge_id,
    url: delivery.url,
    status: delivery.status,
    attempt_count: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? formatTimestamp(delivery.next_attempt_at) : null,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    created_at: formatTimestamp(delivery.created_at),
    updated_at: formatTimestamp(delivery.updated_at),
    delivered_at: formatNullableTimestamp(delivery.delivered_at),
  };
}

export function attemptView(attempt: Attempt) {
  return {
    attempted_at: formatTimestamp(attempt.attempted_at),
    status_code: attempt.status_code,
    latency_ms: attempt.latency_ms,
    response_body: attempt.response_body,
    error: attempt.error,
  };
}
