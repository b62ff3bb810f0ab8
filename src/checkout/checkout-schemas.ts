import { Type, type Static } from '@sinclair/typebox';
import { Authorization, Log, Name, NullableString, Reference, Refunded } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';

/** One schema per boundary: these validate requests, shape responses and feed the API document. */

const HttpUrl = Type.String({ format: 'http-url', maxLength: 2048 });
const Email = Type.String({ format: 'email', maxLength: 255 });
const Amount = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Meta = Type.Object(
  {},
  { additionalProperties: true, 'x-maxJsonBytes': 8192, description: 'Any JSON object, at most 8 KiB as JSON.' },
);
const Title = Type.String({ maxLength: 255 });
const Description = Type.String({ maxLength: 1000 });

export const CurrentCreateBody = Type.Object({
  callback_url: HttpUrl,
  return_url: HttpUrl,
  tx_ref: Reference,
  first_name: Name,
  last_name: Type.Optional(Name),
  email: Type.Optional(Email),
  currency: Type.Unsafe<'MWK' | 'USD'>({ type: 'string', enum: ['MWK', 'USD'] }),
  amount: Amount,
  customization: Type.Optional(
    Type.Object({ title: Type.Optional(Title), description: Type.Optional(Description), logo: Type.Optional(HttpUrl) }),
  ),
  meta: Type.Optional(Meta),
});

export const LegacyCreateBody = Type.Object({
  callback_url: Type.Optional(HttpUrl),
  return_url: Type.Optional(HttpUrl),
  tx_ref: Type.Optional(Reference),
  first_name: Name,
  last_name: Name,
  email: Email,
  currency: Type.Unsafe<'MWK' | 'GBP' | 'USD'>({ type: 'string', enum: ['MWK', 'GBP', 'USD'] }),
  amount: Amount,
  customization: Type.Object({ title: Title, description: Description, logo: Type.Optional(HttpUrl) }),
  meta: Type.Optional(Meta),
  secret_key: Type.Optional(Type.String()),
});

export type CurrentCreateInput = Static<typeof CurrentCreateBody>;
export type LegacyCreateInput = Static<typeof LegacyCreateBody>;

export const CurrentCreateResponse = SuccessEnvelope(
  Type.Object({
    event: Type.Literal('checkout.session:created'),
    checkout_url: Type.String(),
    data: Type.Object({
      tx_ref: Type.String(),
      currency: Type.String(),
      amount: Type.Number(),
      mode: Type.String(),
      status: Type.String(),
    }),
  }),
);

export const LegacyCreateResponse = SuccessEnvelope(Type.Object({ checkout_url: Type.String() }));

const FreeObject = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);
const Customization = Type.Object({ title: NullableString, description: NullableString, logo: NullableString });

export const CurrentVerifyResponse = SuccessEnvelope(
  Type.Object({
    event_type: Type.Literal('checkout.payment'),
    tx_ref: Type.String(),
    mode: Type.String(),
    type: Type.Literal('API Payment (Checkout)'),
    status: Type.String(),
    number_of_attempts: Type.Integer(),
    reference: Type.String(),
    currency: Type.String(),
    amount: Type.Number(),
    charges: Type.Number(),
    ...Refunded,
    customization: Customization,
    meta: FreeObject,
    authorization: Type.Union([Authorization, Type.Null()]),
    customer: Type.Object({ email: NullableString, first_name: NullableString, last_name: NullableString }),
    logs: Type.Array(Log),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);

export const LegacyVerifyResponse = SuccessEnvelope(
  Type.Object({
    first_name: NullableString,
    last_name: NullableString,
    email: NullableString,
    currency: Type.String(),
    amount: Type.String(),
    charge: Type.String(),
    mode: Type.String(),
    type: Type.Literal('API'),
    status: Type.String(),
    reference: Type.String(),
    tx_ref: Type.String(),
    customization: Customization,
    meta: FreeObject,
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);

export const TxRefParams = Type.Object({ tx_ref: Type.String() });

/**
 * The HTML checkout's form as a shop posts it (`application/x-www-form-urlencoded`): every value a
 * text. Documents the form; what is checked is the create body it becomes (CurrentCreateBody),
 * bracket names folded into objects first (hosted-form.ts).
 */
export const HostedFormBody = Type.Object(
  {
    public_key: Type.String({ description: "The merchant's public key: `pub-test-…` or `pub-live-…`." }),
    tx_ref: Type.String(),
    amount: Type.String({ description: 'Whole units, e.g. `2500`.' }),
    currency: Type.String({ enum: ['MWK', 'USD'] }),
    callback_url: Type.String(),
    return_url: Type.String(),
    email: Type.Optional(Type.String({ description: 'Or `customer[email]`.' })),
    first_name: Type.Optional(Type.String({ description: 'Or `customer[first_name]`.' })),
    last_name: Type.Optional(Type.String({ description: 'Or `customer[last_name]`.' })),
    title: Type.Optional(Type.String({ description: 'Or `customization[title]`.' })),
    description: Type.Optional(Type.String({ description: 'Or `customization[description]`.' })),
    logo: Type.Optional(Type.String({ description: 'Or `customization[logo]`.' })),
  },
  {
    additionalProperties: Type.String(),
    description:
      'Nested options as bracket names: `customer[email]`, `customization[title]`, and `meta[<key>]` for each meta field.',
    examples: [
      {
        public_key: 'pub-test-8KI7couQSwtifp8bwbbhVPYCdFW4wY4O',
        tx_ref: 'order-1002',
        amount: '2500',
        currency: 'MWK',
        callback_url: 'https://shop.example/paid',
        return_url: 'https://shop.example/cancelled',
        email: 'thoko@example.com',
        first_name: 'Thoko',
        last_name: 'Banda',
        title: 'Chikondi Crafts',
        description: 'Woven basket',
        'meta[order]': '1002',
      },
    ],
  },
);
