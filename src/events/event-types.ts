import type { Mode } from '../shared/ids.ts';

/** What events are and carry: shared by the outbox (`event-repository.ts`) and the deliveries and receipts it queues. */
export const EVENT_TYPES = [
  'checkout.payment',
  'api.charge.payment',
  'api.payout',
  'api.refund',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  type: EventType;
  subjectId: string;
  /** The webhook body as it will be sent: flat, with `event_type`, `status`, `charge_id`, … */
  payload: Record<string, unknown>;
}

export interface StoredEvent extends NewEvent {
  id: string;
}
