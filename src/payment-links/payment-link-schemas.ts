import { Type, type Static } from '@sinclair/typebox';
import { SuccessEnvelope } from '../http/envelope.ts';

/** The boundary of the payment links API (docs/integrate/api-reference.md#payment-links). */

const Amount = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Whole units of the currency.' });
const Setting = Type.Unsafe<'off' | 'optional' | 'required'>({ type: 'string', enum: ['off', 'optional', 'required'] });
const Title = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.String({ maxLength: 500 });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const CustomerFieldsSchema = Type.Object(
  { name: Type.Optional(Setting), email: Type.Optional(Setting), phone: Type.Optional(Setting) },
  { additionalProperties: false },
);

export const LinkCreateBody = Type.Object(
  {
    title: Title,
    description: Type.Optional(Description),
    amount: Type.Optional(Amount),
    min_amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    currency: Type.Unsafe<'MWK' | 'USD'>({ type: 'string', enum: ['MWK', 'USD'] }),
    reusable: Type.Optional(Type.Boolean()),
    max_payments: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    expires_at: Type.Optional(Type.String({ maxLength: 40, description: 'An ISO 8601 time, in the future.' })),
    customer_fields: Type.Optional(CustomerFieldsSchema),
    redirect_url: Type.Optional(Type.String({ format: 'http-url', maxLength: 2048 })),
    meta: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, 'x-maxJsonBytes': 4096, description: 'Any JSON object, at most 4 KiB as JSON.' },
      ),
    ),
  },
  {
    examples: [
      { title: 'Chitenje fabric, 2 m', amount: 15000, currency: 'MWK', customer_fields: { name: 'required' } },
      { title: 'Donation', min_amount: 500, currency: 'MWK', reusable: true },
    ],
  },
);
export type LinkCreateInput = Static<typeof LinkCreateBody>;

export const LinkUpdateBody = Type.Object({
  title: Type.Optional(Title),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  active: Type.Optional(Type.Boolean()),
  amount: Type.Optional(Type.Union([Amount, Type.Null()], { description: 'Only until the link is first paid.' })),
  currency: Type.Optional(
    Type.Unsafe<'MWK' | 'USD'>({
      type: 'string',
      enum: ['MWK', 'USD'],
      description: 'Only until the link is first paid.',
    }),
  ),
});

export const LinkIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const LinkListQuery = Type.Object({
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  per_page: Type.Optional(Type.String({ pattern: '^([1-9]|[1-9][0-9]|100)$' })),
});

const LinkRecord = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  url: Type.String(),
  qr_svg_url: Type.String(),
  qr_png_url: Type.String(),
  mode: Type.String(),
  active: Type.Boolean(),
  title: Type.String(),
  description: NullableString,
  amount: NullableNumber,
  min_amount: NullableNumber,
  currency: Type.String(),
  reusable: Type.Boolean(),
  max_payments: Type.Union([Type.Integer(), Type.Null()]),
  expires_at: NullableString,
  customer_fields: Type.Object({ name: Setting, email: Setting, phone: Setting }),
  redirect_url: NullableString,
  meta: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  payments_count: Type.Integer(),
  amount_collected: Type.Number(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const EXAMPLE = {
  id: 'plink_4fQ2mX9aLk0TsVw7',
  slug: 'Xa81kQm2Rt0p',
  url: 'https://pay.example.mw/pay/Xa81kQm2Rt0p',
  qr_svg_url: 'https://pay.example.mw/pay/Xa81kQm2Rt0p/qr.svg',
  qr_png_url: 'https://pay.example.mw/pay/Xa81kQm2Rt0p/qr.png',
  mode: 'test',
  active: true,
  title: 'Chitenje fabric, 2 m',
  description: null,
  amount: 15000,
  min_amount: null,
  currency: 'MWK',
  reusable: true,
  max_payments: null,
  expires_at: null,
  customer_fields: { name: 'required', email: 'off', phone: 'optional' },
  redirect_url: null,
  meta: null,
  payments_count: 0,
  amount_collected: 0,
  created_at: '2026-11-28T09:00:00.000000Z',
  updated_at: '2026-11-28T09:00:00.000000Z',
};

export const LinkResponse = SuccessEnvelope(LinkRecord, 'success', {
  examples: [{ status: 'success', message: 'Payment link created successfully.', data: EXAMPLE }],
});

export const LinkListResponse = SuccessEnvelope(
  Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    next_page_url: NullableString,
    data: Type.Array(LinkRecord),
  }),
);

const LinkPayment = Type.Object({
  tx_ref: Type.String(),
  reference: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  status: Type.String(),
  first_name: Type.String(),
  last_name: NullableString,
  email: NullableString,
  completed_at: NullableString,
  created_at: Type.String(),
});

export const LinkPaymentsResponse = SuccessEnvelope(Type.Array(LinkPayment));
