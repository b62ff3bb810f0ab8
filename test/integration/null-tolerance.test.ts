import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody, without } from '../helpers/fixtures.ts';
import { call, useTestGateway, type ApiResponse } from '../helpers/gateway.ts';
import { chargeBody, fundMainBalance, payoutBody } from '../helpers/mobile-money.ts';

/**
 * docs/integrate/api-reference.md#tolerance: an optional field may be absent or JSON `null`, at any depth of the structured
 * objects (`customer`, `customization`), in both generations and on the direct charge and payout
 * bodies. Real clients send such nulls: the Ruby gem and a PHP client send
 * `customization: {title: null, description: null}` when the merchant set no title. `meta` is the
 * merchant's own data: a `null` meta is absent, nulls inside it are kept as sent.
 */

type Body = Record<string, unknown>;

interface Case {
  name: string;
  path: '/payment' | '/api/payment' | '/mobile-money/payments/initialize' | '/mobile-money/payouts/initialize';
  body: () => Body;
  status: number;
  /** What the merchant reads back: the verification of a session, or the created record. */
  expect: Record<string, unknown>;
}

const ALL_NULL_CUSTOMIZATION = { title: null, description: null };
const NO_CUSTOMIZATION = { title: null, description: null, logo: null };
const JANE = { email: 'jane@example.com', first_name: 'Jane', last_name: 'Banda' };
const LEGACY_CUSTOMIZATION_REQUIRED = {
  'customization.title': ['The customization.title field is required.'],
  'customization.description': ['The customization.description field is required.'],
};

function flatless(body: Body): Body {
  return without(without(without(body, 'first_name'), 'last_name'), 'email');
}

const CASES: Case[] = [
  {
    name: 'current: customization with every member null is no customization',
    path: '/payment',
    body: () => currentBody({ customization: ALL_NULL_CUSTOMIZATION }),
    status: 201,
    expect: { customization: NO_CUSTOMIZATION },
  },
  {
    name: 'current: customization with title, description and logo all null, beside a top-level logo',
    path: '/payment',
    body: () => currentBody({ customization: { ...NO_CUSTOMIZATION }, logo: 'https://shop.example.com/logo.png' }),
    status: 201,
    expect: { customization: { title: null, description: null, logo: 'https://shop.example.com/logo.png' } },
  },
  {
    name: 'current: customization with one member null keeps the other',
    path: '/payment',
    body: () => currentBody({ customization: { title: null, description: 'Two bags of maize' } }),
    status: 201,
    expect: { customization: { title: null, description: 'Two bags of maize', logo: null } },
  },
  {
    name: 'current: customization null',
    path: '/payment',
    body: () => currentBody({ customization: null }),
    status: 201,
    expect: { customization: NO_CUSTOMIZATION },
  },
  {
    name: 'current: a nested customer of nulls leaves the flat names as they are',
    path: '/payment',
    body: () => currentBody({ customer: { first_name: null, last_name: null, email: null } }),
    status: 201,
    expect: { customer: JANE },
  },
  {
    name: 'current: a nested customer with some members null fills only the others',
    path: '/payment',
    body: () => flatless(currentBody({ customer: { first_name: 'Nested', last_name: null, email: null } })),
    status: 201,
    expect: { customer: { email: null, first_name: 'Nested', last_name: null } },
  },
  {
    name: 'current: customer null',
    path: '/payment',
    body: () => currentBody({ customer: null }),
    status: 201,
    expect: { customer: JANE },
  },
  {
    name: 'current: meta null is no meta',
    path: '/payment',
    body: () => currentBody({ meta: null }),
    status: 201,
    expect: { meta: null },
  },
  {
    name: "current: nulls inside meta are the merchant's data, kept as sent",
    path: '/payment',
    body: () => currentBody({ meta: { order_id: 7, coupon: null, cart: { note: null, items: [null, 1] } } }),
    status: 201,
    expect: { meta: { order_id: 7, coupon: null, cart: { note: null, items: [null, 1] } } },
  },
  {
    name: 'current: every optional field null at once, at every depth',
    path: '/payment',
    body: () =>
      currentBody({
        last_name: null,
        email: null,
        customer: { first_name: null, last_name: null, email: null },
        customization: ALL_NULL_CUSTOMIZATION,
        logo: null,
        meta: null,
        uuid: null,
      }),
    status: 201,
    expect: {
      customer: { email: null, first_name: 'Jane', last_name: null },
      customization: NO_CUSTOMIZATION,
      meta: null,
    },
  },
  {
    name: 'legacy: customization with every member null names each required member',
    path: '/api/payment',
    body: () => legacyBody({ customization: ALL_NULL_CUSTOMIZATION }),
    status: 400,
    expect: LEGACY_CUSTOMIZATION_REQUIRED,
  },
  {
    name: 'legacy: customization with title, description and logo null names each required member',
    path: '/api/payment',
    body: () => legacyBody({ customization: { ...NO_CUSTOMIZATION } }),
    status: 400,
    expect: LEGACY_CUSTOMIZATION_REQUIRED,
  },
  {
    name: 'legacy: a null description is a missing description',
    path: '/api/payment',
    body: () => legacyBody({ customization: { title: 'Invoice 12', description: null, logo: null } }),
    status: 400,
    expect: { 'customization.description': ['The customization.description field is required.'] },
  },
  {
    name: 'legacy: customization null is a missing customization',
    path: '/api/payment',
    body: () => legacyBody({ customization: null }),
    status: 400,
    expect: { customization: ['The customization field is required.'] },
  },
  {
    name: 'legacy: a null logo beside title and description is no logo',
    path: '/api/payment',
    body: () => legacyBody({ customization: { title: 'Invoice 12', description: 'Consulting', logo: null } }),
    status: 201,
    expect: { customization: { title: 'Invoice 12', description: 'Consulting', logo: null } },
  },
  {
    name: 'legacy: null optionals (callback_url, return_url, meta) and a nested customer with nulls',
    path: '/api/payment',
    body: () =>
      flatless(
        legacyBody({
          callback_url: null,
          return_url: null,
          meta: null,
          customer: { first_name: 'N', last_name: 'C', email: 'n@example.com', phone: null },
        }),
      ),
    status: 201,
    expect: { first_name: 'N', last_name: 'C', email: 'n@example.com', meta: null },
  },
  {
    name: 'direct charge: null and empty customer names and email are absent',
    path: '/mobile-money/payments/initialize',
    body: () => chargeBody({ email: null, first_name: null, last_name: '' }),
    status: 201,
    expect: { email: null, first_name: null, last_name: null, status: 'pending' },
  },
  {
    name: 'payout: null names, email and transaction_status are absent (the sandbox default, successful)',
    path: '/mobile-money/payouts/initialize',
    body: () => payoutBody({ amount: 100, email: null, first_name: null, last_name: null, transaction_status: null }),
    status: 201,
    expect: { email: null, first_name: null, last_name: null, status: 'success' },
  },
];

for (const kind of DATABASE_KINDS) {
  describe(`null optionals at any depth on ${kind}`, () => {
    const ctx = useTestGateway(kind);
    const key = () => ctx.merchant.test_secret_key;

    /** What the merchant reads after a create: verification for a session, the record itself for a charge. */
    async function readBack(path: Case['path'], body: Body, created: ApiResponse): Promise<Body> {
      if (path === '/payment')
        return (await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, { key: key() })).body.data;
      if (path === '/api/payment')
        return (await call(ctx.gw.url, `/api/verify-payment/${String(body.tx_ref)}`, { key: key() })).body.data;
      return created.body.data;
    }

    before(() => fundMainBalance(ctx.gw, ctx.merchant, 1000));

    for (const c of CASES) {
      test(c.name, async () => {
        const body = c.body();
        const res = await call(ctx.gw.url, c.path, { key: key(), body });
        assert.equal(res.status, c.status, res.text);
        if (c.status !== 201) {
          assert.deepEqual(res.body, { status: 'failed', message: c.expect, data: null });
          return;
        }
        const shown = await readBack(c.path, body, res);
        for (const [field, value] of Object.entries(c.expect))
          assert.deepEqual(shown[field], value, `${field} in ${JSON.stringify(shown)}`);
        // A payout has ended by now, and an ended reference is not retried; the others are pending.
        if (c.path === '/mobile-money/payouts/initialize') return;
        const again = await call(ctx.gw.url, c.path, { key: key(), body });
        assert.equal(again.status, 201, `a retry of the same body is the same request: ${again.text}`);
      });
    }
  });
}
