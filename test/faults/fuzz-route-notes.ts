import fc from 'fast-check';
import { ASSETS } from '../../src/checkout/page/views.ts';
import { cardBody } from '../helpers/cards.ts';
import { currentBody, legacyBody } from '../helpers/fixtures.ts';
import { bankPayoutBody } from '../helpers/bank-payouts.ts';
import { bankTransferBody } from '../helpers/bank-transfers.ts';
import { AIRTEL_REF, chargeBody, payoutBody, TEST_NUMBERS, TNM_REF } from '../helpers/mobile-money.ts';
import type { FuzzRequest, FuzzResponse } from './fuzz-http.ts';
import { hostileString } from './fuzz-json.ts';
import type { Creates, RouteNotes, RunContext } from './fuzz-routes.ts';
import { chargeIdentity, type TableName } from './fuzz-state.ts';
import type { RefPool } from './fuzz-world.ts';

/**
 * What the fuzz run knows about each route beyond its schema, keyed like `POST /payment`. A route
 * without notes is still fuzzed (from its schema and template); the notes add the references
 * worth trying, the page forms, what an accepted request may change, and refusals.
 */

const LEDGER: TableName[] = ['ledger_accounts', 'ledger_transactions', 'ledger_entries'];
/** Everything a charge's outcome writes: the charge, its session, logs, the event, its delivery, receipts, the ledger, and the refund of a success its session could not count. */
const OUTCOME: TableName[] = [
  'charges',
  'checkout_sessions',
  'logs',
  'events',
  'webhook_deliveries',
  'emails',
  'refunds',
  ...LEDGER,
];
/** What asking for a refund writes: the refunded total on the charge, the refund, its logs, the money set aside. */
const REFUND: TableName[] = ['charges', 'refunds', 'logs', ...LEDGER];
/** More than any seeded payment: a refund of it is refused whatever the payment's state. */
const beyondAnyPayment = fc.integer({ min: 1_000_001, max: 2_147_483_647 });
/** Mostly the one currency wallets, bank transfers and refunds of kwacha payments take, sometimes one they refuse. */
const mostlyKwacha = () =>
  fc.oneof({ arbitrary: fc.constant('MWK'), weight: 4 }, { arbitrary: fc.constantFrom('USD', 'mwk'), weight: 1 });
/** Mostly a little of a payment, so that refunds of known payments go through now and then. */
const refundAmount = () =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 20 }), weight: 3 });

const everyone = (pool: RefPool): string[] => [...pool.own, ...pool.ownLive, ...pool.other];
const txRefs = (ctx: RunContext) => everyone(ctx.world.txRefs);
const chargeIds = (ctx: RunContext) => [
  ...everyone(ctx.world.chargeIds),
  ...(ctx.checkouts?.attempts.map((attempt) => attempt.chargeId) ?? []),
];
const deliveryIds = (ctx: RunContext) => everyone(ctx.world.deliveryIds);
const refundIds = (ctx: RunContext) => everyone(ctx.world.refundIds);
const sessions = (ctx: RunContext) => [...ctx.checkouts!.sessions, ...ctx.checkouts!.foreignSessions];
const attemptPairs = (ctx: RunContext) =>
  ctx.checkouts!.attempts.map((attempt) => [attempt.sessionId, attempt.chargeId]);

/** Now and then an existing reference instead of a fresh one: duplicates, and other owners' references. */
const sometimesKnown = (pool: (ctx: RunContext) => string[]) => (ctx: RunContext) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.constantFrom(...pool(ctx)), weight: 1 });
const knownOr = (pool: (ctx: RunContext) => string[]) => (ctx: RunContext) =>
  fc.oneof(fc.constantFrom(...pool(ctx)), hostileString);

type AnswerData = { checkout_url?: unknown; charge_id?: unknown; transaction?: { charge_id?: unknown } };
const jsonOf = (answer: FuzzResponse): { data?: AnswerData } | null => {
  try {
    return JSON.parse(answer.text) as { data?: AnswerData };
  } catch {
    return null;
  }
};
const bearer = (request: FuzzRequest) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';

/** A created session is named by its checkout link. */
const sessionOfCheckoutUrl: Creates = {
  table: 'checkout_sessions',
  named: (_request, answer) => {
    const url = jsonOf(answer)?.data?.checkout_url;
    return answer.status === 201 && typeof url === 'string' ? (new URL(url).pathname.split('/').pop() ?? null) : null;
  },
};

/** A session made by the HTML checkout's form is named by the checkout link it redirects to. */
const sessionOfRedirect: Creates = {
  table: 'checkout_sessions',
  named: (_request, answer) => {
    const location = answer.headers.location;
    return answer.status === 302 && typeof location === 'string'
      ? (new URL(location).pathname.split('/').pop() ?? null)
      : null;
  },
};

/** The HTML checkout's form: a merchant's public key (mostly), flat or bracketed names, and now and then hostile values and names. */
const hostedForm = ({ world }: RunContext) =>
  fc
    .record({
      key: fc.oneof(
        { arbitrary: fc.constantFrom(world.a.test_public_key, world.b.live_public_key), weight: 6 },
        { arbitrary: fc.constantFrom('', world.a.test_secret_key, `pub-test-${'A'.repeat(32)}`), weight: 1 },
        { arbitrary: hostileString, weight: 1 },
      ),
      bracketed: fc.boolean(),
      title: fc.oneof(fc.constant('Order 7'), hostileString),
      amount: fc.oneof(fc.constantFrom('1000', '10.5', '0', ''), hostileString),
      extra: fc.oneof(
        fc.constant({}),
        fc.dictionary(
          fc.oneof(fc.constantFrom('meta[__proto__]', '__proto__', 'customer[]', 'meta[a][b]'), hostileString),
          hostileString,
          { maxKeys: 2 },
        ),
      ),
    })
    .map(({ key, bracketed, title, amount, extra }) => {
      const { customization: _c, meta: _m, email, first_name, last_name, ...flat } = currentBody({ amount });
      const names: Record<string, string> = bracketed
        ? {
            'customer[email]': String(email),
            'customer[first_name]': String(first_name),
            'customer[last_name]': String(last_name),
            'customization[title]': title,
            'meta[order]': '7',
          }
        : {
            email: String(email),
            first_name: String(first_name),
            last_name: String(last_name),
            title,
            'meta[order]': '7',
          };
      return {
        public_key: key,
        ...Object.fromEntries(Object.entries(flat).map(([name, value]) => [name, String(value)])),
        ...names,
        ...extra,
      };
    });

/** A direct charge or payout is named by its charge_id, for the merchant and mode of the key that made it. */
const chargeOfRecord: Creates = {
  table: 'charges',
  named: (request, answer, ctx) => {
    const owner = ctx.world.principals.get(bearer(request));
    const chargeId = jsonOf(answer)?.data?.charge_id;
    return answer.status === 201 && owner && typeof chargeId === 'string'
      ? chargeIdentity(owner.merchantId, owner.mode, chargeId)
      : null;
  },
};

/** A direct card charge answers no envelope: it is named by the charge_id it was sent, for the merchant and mode of the key that made it. */
const cardChargeOfRequest: Creates = {
  table: 'charges',
  named: (request, answer, ctx) => {
    const owner = ctx.world.principals.get(bearer(request));
    let chargeId: unknown;
    try {
      chargeId = (JSON.parse(request.body ?? '') as { charge_id?: unknown }).charge_id;
    } catch {
      chargeId = undefined;
    }
    return answer.status === 200 && owner && typeof chargeId === 'string'
      ? chargeIdentity(owner.merchantId, owner.mode, chargeId)
      : null;
  },
};

/** 3-D Secure references: the shape of ours (none known to the run), and hostile text. */
const threeDsReference = () => fc.oneof(fc.uuid(), hostileString);

/** A payout through the banks list, or a bank transfer charge, is named by its transaction's charge_id, for the merchant and mode of the key that made it. */
const transactionOfRecord: Creates = {
  table: 'charges',
  named: (request, answer, ctx) => {
    const owner = ctx.world.principals.get(bearer(request));
    const chargeId = jsonOf(answer)?.data?.transaction?.charge_id;
    return answer.status === 201 && owner && typeof chargeId === 'string'
      ? chargeIdentity(owner.merchantId, owner.mode, chargeId)
      : null;
  },
};

/** A checkout attempt is named by the attempt page the form redirects to. */
const attemptOfRedirect: Creates = {
  table: 'charges',
  named: (_request, answer, ctx) => {
    const match = /^\/checkout\/([^/]+)\/attempts\/([^/?#]+)$/.exec(answer.headers.location ?? '');
    if (answer.status !== 303 || !match) return null;
    const owner = ctx.checkouts!.owners.get(match[1]!);
    return owner
      ? chargeIdentity(owner.merchantId, owner.mode, match[2]!)
      : `an attempt on unknown session ${match[1]}`;
  },
};

const testNumber = fc.constantFrom(...Object.values(TEST_NUMBERS), '+265 99 000 0000', '265899817565');
const mobileForm = () =>
  fc.record({
    mobile: fc.oneof(
      { arbitrary: testNumber, weight: 3 },
      { arbitrary: fc.stringMatching(/^0(99|98|88|89)\d{7}$/), weight: 1 },
      { arbitrary: hostileString, weight: 3 },
    ),
    operator: fc.oneof(fc.constantFrom('', 'airtel', 'tnm'), hostileString),
  });
/** What a card form or a direct card charge carries: mostly test cards, some numbers of no card, hostile text. */
const cardFields = {
  card_number: () =>
    fc.oneof(
      {
        arbitrary: fc.constantFrom(
          '4242 4242 4242 4242',
          '5555555555554444',
          '4000000000000002',
          '4111 1111 1111 1111',
        ),
        weight: 3,
      },
      { arbitrary: fc.stringMatching(/^\d{12,19}$/), weight: 1 },
      { arbitrary: hostileString, weight: 3 },
    ),
  expiry: () => fc.oneof(fc.constantFrom('12/40', '01/20', '13/30', '12/2040', '0/0'), hostileString),
  cvv: () => fc.oneof(fc.constantFrom('123', '1234', '1'), hostileString),
};
const cardForm = () =>
  fc.record({ card_number: cardFields.card_number(), expiry: cardFields.expiry(), cvv: cardFields.cvv() });
const otpForm = () => fc.record({ otp: fc.oneof(fc.constantFrom('1234', ' 1234 ', '0000', ''), hostileString) });

/** The dashboard's forms: no dashboard user exists in the fuzz world, so none of them may change anything. */
const loginForm = () =>
  fc.oneof(
    fc.record({
      email: fc.oneof(fc.constantFrom('owner@example.com', 'OWNER@example.com', ''), hostileString),
      password: fc.oneof(fc.constantFrom('correct horse battery', ''), hostileString),
    }),
    fc.record({ code: fc.oneof(fc.constantFrom('123456', ' 123 456 ', ''), hostileString) }),
    fc.record({
      recovery_code: fc.oneof(fc.constantFrom('7k2m-q9xd-4hbn-tw3p', 'OIL1-0000-0000-0000', ''), hostileString),
    }),
  );
const forgotPasswordForm = () =>
  fc.record({ email: fc.oneof(fc.constantFrom('owner@example.com', 'OWNER@example.com', ''), hostileString) });
const setPasswordForm = () =>
  fc.record({
    token: fc.oneof(fc.constant('A'.repeat(43)), hostileString),
    password: fc.oneof(fc.constant('a long enough password'), hostileString),
    confirm: fc.oneof(fc.constant('a long enough password'), hostileString),
  });
const twoFactorForm = () =>
  fc.record({
    action: fc.oneof(fc.constantFrom('enable', 'disable', ''), hostileString),
    secret: fc.oneof(fc.constant('A'.repeat(32)), hostileString),
    code: fc.oneof(fc.constant('123456'), hostileString),
  });
const emptyForm = () => fc.constant({});
/** Any other dashboard form: the fields its pages post, each plausible or hostile. */
const dashboardForm = () =>
  fc.dictionary(
    fc.constantFrom(
      'mode',
      'amount',
      'all',
      'reason',
      'kind',
      'mobile',
      'operator',
      'bank_uuid',
      'account_number',
      'account_name',
      'charge_id',
      'overlap',
      'url',
      'name',
      'email',
      'role',
      'fee_percent',
      'merchant_id',
      'logo_url',
      'brand_color',
      'receipts',
      'action',
      'user_id',
      'confirm',
    ),
    fc.oneof(
      fc.constantFrom(
        '',
        'test',
        'live',
        '100',
        '0990000000',
        'airtel',
        'owner',
        'viewer',
        '1h',
        'https://shop.example/hooks',
        '#0e7c6b',
        'on',
      ),
      hostileString,
    ),
  );

const pageRoute = (notes: RouteNotes = {}): RouteNotes => ({
  params: { id: sessions, chargeId: chargeIds },
  paramSets: attemptPairs,
  needsCheckouts: true,
  ...notes,
});

const anyOf = <T>(...choices: Array<fc.Arbitrary<T>>) => fc.oneof(...choices);

export const ROUTE_NOTES: Record<string, RouteNotes> = {
  'GET /metrics': { token: ({ world }) => world.metricsToken },
  'POST /payment': {
    fields: { tx_ref: sometimesKnown(txRefs) },
    changes: ['checkout_sessions', 'logs'],
    creates: sessionOfCheckoutUrl,
    // A reference already used by the same merchant and mode, with other parameters (or ended): 400.
    refusals: ({ world }, build) =>
      fc
        .tuple(
          fc.constantFrom<[string, string[]]>(
            [world.a.test_secret_key, world.txRefs.own],
            [world.a.live_secret_key, world.txRefs.ownLive],
            [world.b.test_secret_key, world.txRefs.other],
          ),
          fc.nat(),
          fc.integer({ min: 1001, max: 2_000_000 }),
        )
        .map(([[key, refs], pick, amount]) =>
          build({ key, body: currentBody({ tx_ref: refs[pick % refs.length], amount }) }),
        ),
  },
  'POST /api/payment': {
    // The key in the body (read when no header comes): mostly real secret keys, sometimes another secret, or none.
    fields: {
      tx_ref: sometimesKnown(txRefs),
      secret_key: ({ world }) =>
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 2 },
          { arbitrary: fc.constantFrom(...world.principals.keys()), weight: 3 },
          { arbitrary: fc.constantFrom(...world.secrets), weight: 1 },
        ),
    },
    changes: ['checkout_sessions', 'logs'],
    creates: sessionOfCheckoutUrl,
    refusals: ({ world }, build) =>
      fc
        .tuple(fc.constantFrom(...world.txRefs.own), fc.integer({ min: 10_001, max: 2_000_000 }), fc.boolean())
        .map(([txRef, amount, inBody]) =>
          build(
            inBody
              ? {
                  key: null,
                  body: legacyBody({ tx_ref: txRef, amount: String(amount), secret_key: world.a.test_secret_key }),
                }
              : { key: world.a.test_secret_key, body: legacyBody({ tx_ref: txRef, amount: String(amount) }) },
          ),
        ),
  },
  'POST /popup/payment': {
    publicKeyBearer: true,
    fields: { tx_ref: sometimesKnown(txRefs) },
    changes: ['checkout_sessions', 'logs'],
    creates: sessionOfCheckoutUrl,
  },
  'POST /hosted-payment-page': { form: hostedForm, changes: ['checkout_sessions', 'logs'], creates: sessionOfRedirect },
  'GET /verify-payment/:tx_ref': { params: { tx_ref: txRefs } },
  'GET /api/verify-payment/:tx_ref': { params: { tx_ref: txRefs } },
  'GET /checkout/assets/:file': { params: { file: () => Object.keys(ASSETS) } },
  'GET /checkout/:id': pageRoute(),
  'POST /checkout/:id/pay/mobile-money': pageRoute({
    form: mobileForm,
    changes: ['checkout_sessions', 'charges', 'logs'],
    creates: attemptOfRedirect,
    // A number the sandbox refuses, a live session (live providers move no money), a number of the other network: 422.
    refusals: ({ checkouts }, build) =>
      anyOf(
        fc
          .tuple(fc.constantFrom(...checkouts!.sessions), fc.stringMatching(/^099[1-9]\d{6}$/))
          .map(([id, mobile]) => build({ params: [id], key: null, form: { mobile, operator: '' } })),
        fc.constant(
          build({
            params: [checkouts!.foreignSessions[0]!],
            key: null,
            form: { mobile: TEST_NUMBERS.airtelSuccess, operator: 'airtel' },
          }),
        ),
        fc
          .constantFrom(...checkouts!.sessions)
          .map((id) =>
            build({ params: [id], key: null, form: { mobile: TEST_NUMBERS.tnmSuccess, operator: 'airtel' } }),
          ),
      ),
  }),
  'POST /checkout/:id/pay/card': pageRoute({
    form: cardForm,
    changes: ['checkout_sessions', 'charges', 'logs'],
    creates: attemptOfRedirect,
    refusals: ({ checkouts }, build) =>
      anyOf(
        fc.constantFrom(...checkouts!.sessions).map((id) =>
          build({
            params: [id],
            key: null,
            form: { card_number: '4111 1111 1111 1111', expiry: '12/40', cvv: '123' },
          }),
        ),
        fc.constantFrom(...checkouts!.sessions).map((id) =>
          build({
            params: [id],
            key: null,
            form: { card_number: '4242 4242 4242 4242', expiry: '01/20', cvv: '123' },
          }),
        ),
        fc.constant(
          build({
            params: [checkouts!.foreignSessions[0]!],
            key: null,
            form: { card_number: '4242 4242 4242 4242', expiry: '12/40', cvv: '123' },
          }),
        ),
      ),
  }),
  'POST /checkout/:id/cancel': pageRoute({
    form: () => fc.constant({}),
    changes: ['checkout_sessions', 'logs'],
    // A forged form (its token differs from the cookie's): 403, and the session stays pending.
    refusals: (ctx, build) =>
      fc
        .tuple(fc.constantFrom(...sessions(ctx)), hostileString)
        .map(([id, csrf]) => build({ params: [id], key: null, form: {}, csrf: `x${csrf}` })),
  }),
  'POST /checkout/:id/pay/bank-transfer': pageRoute({
    form: () => fc.constant({}),
    changes: ['checkout_sessions', 'charges', 'bank_transfer_accounts', 'logs'],
    creates: attemptOfRedirect,
    // A live session (no bank is connected for live keys): 422, nothing recorded.
    refusals: ({ checkouts }, build) =>
      fc.constant(build({ params: [checkouts!.foreignSessions[0]!], key: null, form: {} })),
  }),
  'GET /checkout/:id/cancel': pageRoute(),
  'GET /checkout/:id/done': pageRoute(),
  'GET /checkout/:id/attempts/:chargeId': pageRoute(),
  'GET /checkout/:id/attempts/:chargeId/return': pageRoute(),
  'POST /checkout/:id/attempts/:chargeId/abandon': pageRoute({
    form: () => fc.constant({}),
    changes: ['checkout_sessions', 'logs'],
    // A forged form: 403, and the request in flight keeps the session's slot.
    refusals: ({ checkouts }, build) =>
      fc
        .tuple(fc.constantFrom(...checkouts!.attempts), hostileString)
        .map(([{ sessionId, chargeId }, csrf]) =>
          build({ params: [sessionId, chargeId], key: null, form: {}, csrf: `x${csrf}` }),
        ),
  }),
  'GET /checkout/:id/attempts/:chargeId/status': pageRoute({ answers: 'attempt-status' }),
  'POST /checkout/:id/attempts/:chargeId/otp': pageRoute({
    form: otpForm,
    changes: OUTCOME,
    refusals: ({ checkouts }, build) =>
      anyOf(
        fc
          .constantFrom(...checkouts!.attempts)
          .map(({ sessionId, chargeId }) =>
            build({ params: [sessionId, chargeId], key: null, form: { otp: '1234' }, csrf: 'forged' }),
          ),
        fc
          .tuple(fc.constantFrom(...checkouts!.attempts), fc.constantFrom(...checkouts!.foreignSessions))
          .map(([{ chargeId }, id]) => build({ params: [id, chargeId], key: null, form: { otp: '1234' } })),
      ),
  }),
  'GET /webhooks/deliveries': { query: { tx_ref: knownOr(txRefs), charge_id: knownOr(chargeIds) } },
  'GET /webhooks/deliveries/:id': { params: { id: deliveryIds } },
  // Days and times, some that do not exist, some ranges that end before they start.
  'GET /events': {
    query: {
      from: () => fc.oneof(fc.constantFrom('2026-11-01', '2026-02-30', '2026-11-28T09:00:00Z'), hostileString),
      to: () =>
        fc.oneof(fc.constantFrom('2026-10-01', '2026-12-31T23:59:59+02:00', '2026-11-28T25:00Z'), hostileString),
    },
  },
  'GET /events/stream': { answers: 'stream' },
  'POST /webhooks/deliveries/:id/redeliver': {
    params: { id: deliveryIds },
    changes: ['webhook_deliveries'],
    // Another merchant's delivery, or one of the other mode: 404, and it is not queued again.
    refusals: ({ world }, build) =>
      anyOf(
        fc.constantFrom(...world.deliveryIds.other).map((id) => build({ params: [id], key: world.a.test_secret_key })),
        fc.constantFrom(...world.deliveryIds.own).map((id) => build({ params: [id], key: world.b.test_secret_key })),
        fc.constantFrom(...world.deliveryIds.own).map((id) => build({ params: [id], key: world.a.live_secret_key })),
      ),
  },
  'POST /mobile-money/payments/initialize': {
    fields: { charge_id: sometimesKnown(chargeIds) },
    changes: ['charges', 'logs'],
    creates: chargeOfRecord,
    // A charge_id already taken, a live key (no live operator), a number the sandbox refuses, a number of the other network: 400.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), fc.integer({ min: 1001, max: 100_000 }))
          .map(([charge_id, amount]) =>
            build({ key: world.a.test_secret_key, body: chargeBody({ charge_id, amount }) }),
          ),
        fc.constant(null).map(() => build({ key: world.a.live_secret_key, body: chargeBody() })),
        fc
          .stringMatching(/^099[1-9]\d{6}$/)
          .map((mobile) => build({ key: world.b.test_secret_key, body: chargeBody({ mobile }) })),
        fc.constant(null).map(() =>
          build({
            key: world.a.test_secret_key,
            body: chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: AIRTEL_REF }),
          }),
        ),
      ),
  },
  'GET /mobile-money/payments/:charge_id/verify': { params: { charge_id: chargeIds }, changes: OUTCOME },
  'GET /mobile-money/payments/:charge_id/details': { params: { charge_id: chargeIds } },
  'POST /mobile-money/payouts/initialize': {
    // Mostly the one currency paid, so that some payouts are made.
    fields: { charge_id: sometimesKnown(chargeIds), currency: mostlyKwacha },
    changes: ['charges', 'logs', 'events', 'webhook_deliveries', ...LEDGER],
    creates: chargeOfRecord,
    // More than the balance, a balance that is empty (live, merchant B), an operator without payouts, a charge_id taken, a currency but MWK: 400.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .integer({ min: 1_500_000, max: 2_147_483_647 })
          .map((amount) => build({ key: world.a.test_secret_key, body: payoutBody({ amount }) })),
        fc
          .constantFrom('USD', 'GBP', 'mwk')
          .map((currency) => build({ key: world.a.test_secret_key, body: payoutBody({ currency }) })),
        fc
          .constantFrom(world.a.live_secret_key, world.b.test_secret_key)
          .map((key) => build({ key, body: payoutBody() })),
        fc.constant(null).map(() =>
          build({
            key: world.a.test_secret_key,
            body: payoutBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF }),
          }),
        ),
        fc
          .constantFrom(...world.chargeIds.own)
          .map((charge_id) => build({ key: world.a.test_secret_key, body: payoutBody({ charge_id }) })),
      ),
  },
  'POST /direct-charge/payouts/initialize': {
    // Mostly numbers a bank or a wallet takes, so that some payouts are accepted (the schema's own strings are refused).
    fields: {
      charge_id: sometimesKnown(chargeIds),
      bank_account_number: () =>
        fc.oneof(
          fc.constantFrom('1001000010', TEST_NUMBERS.airtelSuccess, '265899817565'),
          fc.stringMatching(/^\d{5,20}$/),
          hostileString,
        ),
    },
    changes: ['charges', 'payout_recipients', 'logs', 'events', 'webhook_deliveries', ...LEDGER],
    creates: transactionOfRecord,
    // More than the balance, a balance that is empty (live, merchant B), a charge_id taken, a wallet given another network's number, a live key choosing the outcome: 400.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .integer({ min: 1_500_000, max: 2_147_483_647 })
          .map((amount) => build({ key: world.a.test_secret_key, body: bankPayoutBody({ amount }) })),
        fc
          .constantFrom(world.a.live_secret_key, world.b.test_secret_key)
          .map((key) => build({ key, body: bankPayoutBody() })),
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), fc.integer({ min: 1001, max: 100_000 }))
          .map(([charge_id, amount]) =>
            build({ key: world.a.test_secret_key, body: bankPayoutBody({ charge_id, amount }) }),
          ),
        fc.constant(null).map(() =>
          build({
            key: world.a.test_secret_key,
            body: bankPayoutBody({ bank_uuid: AIRTEL_REF, bank_account_number: TEST_NUMBERS.tnmSuccess }),
          }),
        ),
        fc
          .constantFrom('successful', 'failed')
          .map((transaction_status) =>
            build({ key: world.a.live_secret_key, body: bankPayoutBody({ transaction_status }) }),
          ),
      ),
  },
  'POST /direct-charge/payments/initialize': {
    // Mostly the one method and currency taken, so that some charges are accepted.
    fields: {
      charge_id: sometimesKnown(chargeIds),
      payment_method: () =>
        fc.oneof(
          { arbitrary: fc.constant('mobile_bank_transfer'), weight: 4 },
          { arbitrary: hostileString, weight: 1 },
        ),
      currency: mostlyKwacha,
    },
    changes: ['charges', 'bank_transfer_accounts', 'logs'],
    creates: transactionOfRecord,
    // A charge_id taken with other parameters, a live key (no bank connected), another currency or method: 400.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), fc.integer({ min: 1001, max: 100_000 }))
          .map(([charge_id, amount]) =>
            build({ key: world.a.test_secret_key, body: bankTransferBody({ charge_id, amount }) }),
          ),
        fc.constant(null).map(() => build({ key: world.a.live_secret_key, body: bankTransferBody() })),
        fc
          .constantFrom('USD', 'GBP')
          .map((currency) => build({ key: world.a.test_secret_key, body: bankTransferBody({ currency }) })),
        fc
          .constantFrom('card', 'mobile_money')
          .map((payment_method) => build({ key: world.a.test_secret_key, body: bankTransferBody({ payment_method }) })),
      ),
  },
  // Settling (test keys) or reading a charge whose outcome is due records it, with who paid.
  'GET /direct-charge/transactions/:charge_id/details': {
    params: { charge_id: chargeIds },
    changes: [...OUTCOME, 'bank_transfer_accounts'],
    // A live key choosing the outcome: 400.
    refusals: ({ world }, build) =>
      fc
        .constantFrom(...world.chargeIds.own)
        .map((chargeId) =>
          build({ params: [chargeId], key: world.a.live_secret_key, query: '?transaction_status=successful' }),
        ),
  },
  // Reading a payout whose outcome is due records it (none is due during the run: test payouts take an hour).
  'GET /direct-charge/payouts/:charge_id/details': { params: { charge_id: chargeIds }, changes: OUTCOME },
  'POST /charge-card/refund/:charge_id': {
    params: { charge_id: chargeIds },
    fields: { amount: refundAmount },
    changes: REFUND,
    // More than was paid, of any charge of A's (a card payment, another channel, a payout, a pending one), or with a key that does not see it: 400 or 404.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), beyondAnyPayment)
          .map(([chargeId, amount]) => build({ params: [chargeId], key: world.a.test_secret_key, body: { amount } })),
        fc
          .constantFrom(...world.chargeIds.own)
          .map((chargeId) => build({ params: [chargeId], key: world.a.live_secret_key })),
      ),
  },
  'POST /charge-card/payments': {
    answers: 'card-start',
    fields: { charge_id: sometimesKnown(chargeIds), ...cardFields },
    changes: ['charges', 'card_authentications', 'logs'],
    creates: cardChargeOfRequest,
    // A charge_id already taken, a live key (no acquirer connected), a card the sandbox refuses, an expired card: 400.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), fc.integer({ min: 1001, max: 100_000 }))
          .map(([charge_id, amount]) => build({ key: world.a.test_secret_key, body: cardBody({ charge_id, amount }) })),
        fc.constant(null).map(() => build({ key: world.a.live_secret_key, body: cardBody() })),
        fc
          .constant(null)
          .map(() => build({ key: world.b.test_secret_key, body: cardBody({ card_number: '4111 1111 1111 1111' }) })),
        fc.constant(null).map(() => build({ key: world.a.test_secret_key, body: cardBody({ expiry: '01/20' }) })),
      ),
  },
  // Verifying a card charge whose 3-D Secure link ran out fails it.
  'GET /charge-card/verify/:charge_id': { params: { charge_id: chargeIds }, changes: OUTCOME },
  'GET /3ds/auth': { query: { reference: threeDsReference }, changes: OUTCOME },
  'GET /3ds/return': { query: { reference: threeDsReference }, changes: OUTCOME },
  'POST /3ds/auth': {
    query: { reference: threeDsReference },
    form: otpForm,
    changes: [...OUTCOME, 'card_authentications'],
  },
  'POST /refunds': {
    fields: {
      charge_id: sometimesKnown(chargeIds),
      tx_ref: sometimesKnown(txRefs),
      amount: refundAmount,
      currency: mostlyKwacha,
    },
    changes: REFUND,
    // More than was paid of any payment of A's, a payment the key does not see, one named both ways, or in a currency no payment is made in: 400 or 404.
    refusals: ({ world }, build) =>
      anyOf(
        fc
          .constantFrom(...world.chargeIds.own)
          .map((charge_id) => build({ key: world.a.test_secret_key, body: { charge_id, currency: 'ZMW' } })),
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), beyondAnyPayment)
          .map(([charge_id, amount]) => build({ key: world.a.test_secret_key, body: { charge_id, amount } })),
        fc
          .tuple(fc.constantFrom(...world.txRefs.own), beyondAnyPayment)
          .map(([tx_ref, amount]) => build({ key: world.a.test_secret_key, body: { tx_ref, amount } })),
        fc
          .constantFrom(...world.chargeIds.own)
          .map((charge_id) => build({ key: world.a.live_secret_key, body: { charge_id } })),
        fc
          .tuple(fc.constantFrom(...world.chargeIds.own), fc.constantFrom(...world.txRefs.own))
          .map(([charge_id, tx_ref]) => build({ key: world.a.test_secret_key, body: { charge_id, tx_ref } })),
      ),
  },
  'GET /refunds/:refund_id': { params: { refund_id: refundIds } },
  'GET /refunds': { query: { charge_id: knownOr(chargeIds), tx_ref: knownOr(txRefs) } },
  // The test helpers (test keys; a live key's request is the 404 of a route that is not there, another merchant's record is not found).
  'POST /test-helpers/checkout-sessions/:tx_ref/expire': {
    params: { tx_ref: txRefs },
    changes: ['checkout_sessions', 'logs'],
    // A live key finds no helper. Another merchant's key is not tried with A's references: the
    // fuzz makes B payments under A's references (duplicates across merchants are allowed), which
    // B may then end; test/integration/test-helpers.test.ts keeps merchants apart.
    refusals: ({ world }, build) =>
      fc.constantFrom(...world.txRefs.own).map((ref) => build({ params: [ref], key: world.a.live_secret_key })),
  },
  'POST /test-helpers/direct-charges/:charge_id/complete': {
    params: { charge_id: chargeIds },
    changes: [...OUTCOME, 'bank_transfer_accounts'],
    // As for expire: a live key only, since B may hold payments under A's references.
    refusals: ({ world }, build) =>
      fc
        .constantFrom(...world.chargeIds.own)
        .map((id) => build({ params: [id], key: world.a.live_secret_key, body: { status: 'success' } })),
  },
  'POST /test-helpers/bank-transfers/:charge_id/receive': {
    params: { charge_id: chargeIds },
    changes: [...OUTCOME, 'bank_transfer_accounts'],
    refusals: ({ world }, build) =>
      fc
        .constantFrom(...world.chargeIds.own)
        .map((id) => build({ params: [id], key: world.a.live_secret_key, body: { amount: 25000 } })),
  },
  'POST /test-helpers/settlements/run': { changes: LEDGER },
  'POST /test-helpers/webhooks/:delivery_id/retry-now': {
    params: { delivery_id: deliveryIds },
    changes: ['webhook_deliveries'],
    refusals: ({ world }, build) =>
      anyOf(
        fc.constantFrom(...world.deliveryIds.own).map((id) => build({ params: [id], key: world.a.live_secret_key })),
        fc.constantFrom(...world.deliveryIds.own).map((id) => build({ params: [id], key: world.b.test_secret_key })),
      ),
  },
  // Only Airtel Money is routed in the fuzz world, and no live charge exists: its callbacks find nothing to ask about, the others are the 404 of an unknown connector; none changes anything.
  'POST /callbacks/:connector': { params: { connector: () => ['airtel', 'paychangu', 'tnm', 'x'] } },
  'GET /dashboard/set-password': { query: { token: () => fc.oneof(fc.constant('A'.repeat(43)), hostileString) } },
  'POST /dashboard/login': { form: loginForm },
  'POST /dashboard/set-password': { form: setPasswordForm },
  'POST /dashboard/forgot-password': { form: forgotPasswordForm },
  'GET /dashboard/forgot-password': { query: { sent: () => fc.oneof(fc.constant('1'), hostileString) } },
  'POST /dashboard/logout': { form: emptyForm },
  'POST /dashboard/logout-everywhere': { form: emptyForm },
  'POST /dashboard/settings/two-factor': { form: twoFactorForm },
  'POST /dashboard/mode': { form: dashboardForm },
  'POST /dashboard/payments/:id/refund': { form: dashboardForm },
  'POST /dashboard/deliveries/:id/retry': { form: dashboardForm },
  'POST /dashboard/payouts/new/confirm': { form: dashboardForm },
  'POST /dashboard/payouts': { form: dashboardForm },
  'POST /dashboard/developers/keys/roll': { form: dashboardForm },
  'POST /dashboard/developers/webhook': { form: dashboardForm },
  'POST /dashboard/developers/webhook/secret': { form: dashboardForm },
  'POST /dashboard/developers/webhook/test': { form: dashboardForm },
  'POST /dashboard/settings': { form: dashboardForm },
  'POST /dashboard/settings/team/invite': { form: dashboardForm },
  'POST /dashboard/settings/team/:id/role': { form: dashboardForm },
  'POST /dashboard/settings/team/:id/remove': { form: dashboardForm },
  'POST /dashboard/settings/team/invitations/:id/cancel': { form: dashboardForm },
  'POST /dashboard/operator/act': { form: dashboardForm },
  'POST /dashboard/operator/merchants/new': { form: dashboardForm },
  'POST /dashboard/operator/merchants/:id/fees': { form: dashboardForm },
  'POST /dashboard/operator/merchants/:id/users': { form: dashboardForm },
  'POST /dashboard/operator/merchants/:id/users/:user/reset-password': { form: dashboardForm },
  'POST /dashboard/operator/merchants/:id/users/:user/reset-two-factor': { form: dashboardForm },
  'POST /dashboard/payments/:id/refund/confirm': { form: dashboardForm },
  'POST /dashboard/payouts/schedule': { form: dashboardForm },
  'POST /dashboard/payouts/schedule/confirm': { form: dashboardForm },
  'POST /dashboard/payouts/schedule/stop': { form: dashboardForm },
  'POST /dashboard/settings/team/:id/reset-password': { form: dashboardForm },
  'POST /dashboard/settings/team/:id/reset-two-factor': { form: dashboardForm },
  'POST /dashboard/payment-links': { form: dashboardForm },
  'POST /dashboard/payment-links/:id': { form: dashboardForm },
  'POST /dashboard/payment-links/:id/active': { form: dashboardForm },
  // The public page of a link: a form (its own CSRF cookie); a slug the run does not know is a 404 page.
  'POST /pay/:slug': { form: () => fc.constant({}), changes: ['checkout_sessions', 'logs'] },
  'POST /payment-links': { changes: ['payment_links', 'audit_log'] },
  'PATCH /payment-links/:id': { changes: ['payment_links', 'audit_log'] },
  'GET /openapi.json': { answers: 'document' },
  'GET /docs/json': { answers: 'document' },
  'GET /docs/*': {
    answers: 'document',
    params: {
      '*': () => [
        'index.html',
        'swagger-initializer.js',
        'static/index.html',
        'static/swagger-initializer.js',
        'json',
        'yaml',
        'static/oauth2-redirect.html',
      ],
    },
  },
};
