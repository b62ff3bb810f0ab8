// What the bench reads back of the webhooks the gateway queued: which charge each was about, and
// when the state change that made it was committed.
export interface DeliveryEvent {
  deliveryId: string;
  chargeId: string | null;
  eventCreatedAt: number;
}

/** DeliveryEvent's rows, for a merchant id bound last. */
export const DELIVERY_EVENTS =
  'select d.id as "deliveryId", d.charge_id as "chargeId", e.created_at as "eventCreatedAt" from webhook_deliveries d join events e on e.id = d.event_id where d.merchant_id =';
