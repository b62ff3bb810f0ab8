import { Type } from '@sinclair/typebox';
import { SuccessEnvelope } from '../http/envelope.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const DeliveryQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
  tx_ref: Type.Optional(Type.String({ maxLength: 100 })),
  charge_id: Type.Optional(Type.String({ maxLength: 100 })),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  per_page: Type.Optional(Type.String({ pattern: '^([1-9]|[1-9][0-9]|100)$' })),
});

export const DeliveryParams = Type.Object({ id: Type.String() });

const DeliverySummary = Type.Object({
  id: Type.String(),
  event_type: Type.String(),
  tx_ref: NullableString,
  charge_id: NullableString,
  url: Type.String(),
  status: Type.String(),
  attempt_count: Type.Integer(),
  next_attempt_at: NullableString,
  last_status_code: NullableInteger,
  last_error: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
  delivered_at: NullableString,
});

const AttemptView = Type.Object({
  attempted_at: Type.String(),
  status_code: NullableInteger,
  latency_ms: Type.Integer(),
  response_body: NullableString,
  error: NullableString,
});

export const DeliveryListResponse = SuccessEnvelope(
  Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    next_page_url: NullableString,
    data: Type.Array(DeliverySummary),
  }),
);

export const DeliveryDetailResponse = SuccessEnvelope(
  Type.Composite([
    DeliverySummary,
    Type.Object({ payload: Type.Object({}, { additionalProperties: true }), attempts: Type.Array(AttemptView) }),
  ]),
);

export const DeliverySummaryResponse = SuccessEnvelope(DeliverySummary);
