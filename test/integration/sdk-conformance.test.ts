import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { TIMESTAMP, uniqueRef } from '../helpers/fixtures.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { AIRTEL_REF, eventually, fundMainBalance, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payAtCheckout } from '../helpers/payments.ts';

/**
 * The published PayChangu clients that CI cannot run (no PyPI, Packagist or RubyGems here): the
 * Python SDK, two PHP clients and the Ruby gem. Each request below is what the client puts on the
 * wire for its checkout and mobile money flows (method, path, headers, body as its JSON encoder
 * writes it: string amounts, nulls, a nested customer, escaped slashes, a body on a GET), and each
 * check is what the client then reads from the answer, with the types it needs. The comment above
 * each request names the repository and file the shape comes from. The JavaScript SDK runs for
 * real in sdk-paychangu-js.test.ts.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Reply = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- read field by field, as the clients do

interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** The exact bytes, when the client sends a body (the PHP client sends `[]` on its GETs). */
  body?: string;
}

/** Sends a request exactly as given, which fetch cannot do (it refuses a body on a GET). */
function send(base: string, request: WireRequest): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers =
      request.body === undefined
        ? request.headers
        : { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) };
    const outgoing = http.request(new URL(request.path, base), { method: request.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** Python's json.dumps with its default separators (`", "` and `": "`), which requests uses for `json=`. */
function pythonJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** PHP's json_encode with no flags, as Guzzle and the PHP clients call it: `/` is written `\/`. */
const phpJson = (value: Json): string => JSON.stringify(value).replace(/\//g, '\\/');

/** Ruby's Hash#to_json: compact, like JSON.stringify. */
const rubyJson = (value: Json): string => JSON.stringify(value);

// Each HTTP library's own default headers, beside the ones the client sets.
const PYTHON_REQUESTS = {
  'User-Agent': 'python-requests/2.34.2',
  'Accept-Encoding': 'gzip, deflate',
  Connection: 'keep-alive',
};
const GUZZLE = { 'User-Agent': 'GuzzleHttp/7' };
const RUBY_NET_HTTP = { 'User-Agent': 'Ruby', 'Accept-Encoding': 'gzip;q=1.0,deflate;q=0.6,identity;q=0.3' };

const isInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value);
const isStringOrNull = (value: unknown) => value === null || typeof value === 'string';

function assertFields(
  record: Record<string, unknown>,
  checks: Record<string, (value: unknown) => boolean>,
  who: string,
): void {
  for (const [field, check] of Object.entries(checks))
    assert.ok(check(record[field]), `${who} reads ${field} = ${JSON.stringify(record[field])}`);
}

/**
 * What Alluvamz/php-paychangu-mobile reads from every charge answer (initialize, verify, details):
 * `SuccessResponse::makeFromArray` (src/Response/SuccessResponse.php) takes status, message and
 * data as string, string, array, then `DirectChargeResponseData` (src/Data/ResponseData/
 * DirectChargeResponseData.php, strict_types) requires each of these, `type` included.
 */
function assertAlluvamzReadsCharge(reply: Reply, envelopeStatus: string): void {
  assert.equal(reply.status >= 200 && reply.status < 300, true, JSON.stringify(reply.body));
  assert.equal(reply.body.status, envelopeStatus);
  assert.equal(typeof reply.body.message, 'string');
  assertFields(
    reply.body.data,
    {
      amount: isInteger,
      charge_id: (v) => typeof v === 'string',
      ref_id: (v) => typeof v === 'string',
      trans_id: isStringOrNull,
      type: (v) => typeof v === 'string',
      status: (v) => v === 'pending' || v === 'success' || v === 'failed',
      mobile: (v) => typeof v === 'string',
      attempts: isInteger,
    },
    'DirectChargeResponseData',
  );
}

for (const kind of DATABASE_KINDS) {
  describe(`what published PayChangu clients send and read, against a real gateway on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '0' });
    const base = () => ctx.gw.url;
    const bearer = () => `Bearer ${ctx.merchant.test_secret_key}`;

    /** Waits until a verification (sent as `request`) shows the charge ended. */
    const settled = (request: () => WireRequest) =>
      eventually('the charge to end', async () => {
        const reply = await send(base(), request());
        return reply.body?.data?.status === 'pending' ? null : reply;
      });

    describe('the Python SDK (mzati-paychangu/paychangu_python_sdk)', () => {
      // src/paychangu/_http.py: one requests.Session with Accept, Content-Type and Authorization on every request, GETs included.
      const headers = () => ({
        ...PYTHON_REQUESTS,
        Accept: 'application/json',
        'Content-Type': 'application/json',
        Authorization: bearer(),
      });

      test('checkout: initiate with a string amount and a null inside customization, pay, verify', async () => {
        const txRef = uniqueRef('py');
        // src/paychangu/resources/payments.py `initiate` (dict path): drops top-level None (email,
        // last_name), keeps nested None, turns the amount into text (_utils.py `stringify_amount`).
        const created = await send(base(), {
          method: 'POST',
          path: '/payment',
          headers: headers(),
          body: pythonJson({
            amount: '1000',
            currency: 'MWK',
            callback_url: 'https://shop.example.com/paid',
            return_url: 'https://shop.example.com/cancelled',
            tx_ref: txRef,
            first_name: 'John',
            customization: { title: 'Order #1', description: null },
          }),
        });
        // _http.py `_parse_response`: a 2xx JSON body is the result; README reads session["data"]["checkout_url"].
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(typeof created.body.data.checkout_url, 'string');
        assert.equal(created.body.data.data.tx_ref, txRef);
        await payAtCheckout(base(), created.body.data.checkout_url, TEST_NUMBERS.airtelSuccess);

        // resources/payments.py `verify`: GET /verify-payment/{tx_ref}.
        const verified = await send(base(), { method: 'GET', path: `/verify-payment/${txRef}`, headers: headers() });
        assert.equal(verified.status, 200);
        assert.equal(verified.body.status, 'success');
        assert.equal(verified.body.data.status, 'success');
        assert.deepEqual(verified.body.data.customization, { title: 'Order #1', description: null, logo: null });
      });

      test('a refused create carries the message format_api_message reads: field to list of texts', async () => {
        // exceptions.py `format_api_message`: message as a string, or a dict of field -> list.
        const refused = await send(base(), {
          method: 'POST',
          path: '/payment',
          headers: headers(),
          body: pythonJson({ amount: '1000', currency: 'MWK', tx_ref: uniqueRef('py') }),
        });
        assert.equal(refused.status, 400);
        for (const texts of Object.values(refused.body.message))
          assert.ok(Array.isArray(texts) && texts.every((t) => typeof t === 'string'), JSON.stringify(refused.body));
      });

      test('mobile money: operators, initialize with the 265… form and a string amount, verify, details', async () => {
        // resources/direct_charge.py `operators`: GET /mobile-money; README reads data[…]["ref_id"].
        const operators = await send(base(), { method: 'GET', path: '/mobile-money', headers: headers() });
        const airtel = operators.body.data.find((operator: { short_code: string }) => operator.short_code === 'airtel');
        assert.equal(airtel.ref_id, AIRTEL_REF);
        const chargeId = uniqueRef('py-charge');
        // resources/direct_charge.py `initialize`: omit_none, amount as text; README's number form 265….
        const created = await send(base(), {
          method: 'POST',
          path: '/mobile-money/payments/initialize',
          headers: headers(),
          body: pythonJson({
            mobile: '265990000000',
            mobile_money_operator_ref_id: airtel.ref_id,
            amount: '1000',
            charge_id: chargeId,
            first_name: 'John',
          }),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.data.status, 'pending');
        // `verify`: GET …/verify; top-level "successful".
        const verified = await settled(() => ({
          method: 'GET',
          path: `/mobile-money/payments/${chargeId}/verify`,
          headers: headers(),
        }));
        assert.equal(verified.body.status, 'successful');
        assert.equal(verified.body.data.status, 'success');
        // `details`: GET …/details.
        const details = await send(base(), {
          method: 'GET',
          path: `/mobile-money/payments/${chargeId}/details`,
          headers: headers(),
        });
        assert.equal(details.body.status, 'success');
        assert.equal(details.body.data.type, 'Direct API Payment');
        assert.equal(details.body.data.trace_id, null);
      });

      test('mobile money payout: initiate_momo, then momo_details on the charge details path', async () => {
        await fundMainBalance(ctx.gw, ctx.merchant, 1000);
        const chargeId = uniqueRef('py-payout');
        // resources/payouts.py `initiate_momo`: POST /mobile-money/payouts/initialize, no transaction_status unless given.
        const created = await send(base(), {
          method: 'POST',
          path: '/mobile-money/payouts/initialize',
          headers: headers(),
          body: pythonJson({
            mobile: TEST_NUMBERS.airtelSuccess,
            mobile_money_operator_ref_id: AIRTEL_REF,
            amount: '500',
            charge_id: chargeId,
          }),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.data.status, 'success', 'the sandbox default, successful');
        // `momo_details`: GET /mobile-money/payments/{charge_id}/details.
        const details = await send(base(), {
          method: 'GET',
          path: `/mobile-money/payments/${chargeId}/details`,
          headers: headers(),
        });
        assert.equal(details.body.status, 'success');
        assert.equal(details.body.data.type, 'API Payout');
        assert.equal(details.body.data.event_type, 'api.payout');
      });
    });

    describe('the PHP client codelabmw/paychangu-php', () => {
      // src/Client.php: Authorization, Content-Type and Accept on every request, and the body
      // json_encode($data) on every request: `[]` on a GET.
      const headers = () => ({
        ...GUZZLE,
        Authorization: bearer(),
        'Content-Type': 'application/json',
        Accept: 'application/json',
      });

      test('checkout: an order with no title sends customization of nulls, a nested customer, meta and uuid null; pay; verify', async () => {
        const txRef = uniqueRef('php');
        // src/Payments/Standard/StandardOrder.php `toArray`: amount as int, customization {title,
        // description} null when the merchant set none, customer nested, meta and uuid null.
        const created = await send(base(), {
          method: 'POST',
          path: '/payment',
          headers: headers(),
          body: phpJson({
            amount: 1000,
            currency: 'MWK',
            tx_ref: txRef,
            callback_url: 'https://shop.example.com/paid',
            return_url: 'https://shop.example.com/cancelled',
            customization: { title: null, description: null },
            customer: { first_name: 'Jane', last_name: 'Banda', email: 'jane@example.com' },
            meta: null,
            uuid: null,
          }),
        });
        // src/Payments/Standard/StandardPayment.php `initiate`: a 400 throws; otherwise
        // PendingPayment::fromArray($data['data']) (src/Payments/Standard/PendingPayment.php)
        // wants event containing checkout.session:created, checkout_url, data.tx_ref, a currency its
        // enum knows (src/Enums/Currency.php: MWK only), amount, mode and status.
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const session = created.body.data;
        assert.ok(String(session.event).includes('checkout.session:created'));
        assert.equal(typeof session.checkout_url, 'string');
        assert.equal(session.data.tx_ref, txRef);
        assert.equal(session.data.currency, 'MWK');
        assert.ok(isInteger(session.data.amount));
        assert.equal(typeof session.data.mode, 'string');
        assert.equal(session.data.status, 'pending');
        await payAtCheckout(base(), session.checkout_url, TEST_NUMBERS.airtelSuccess);

        // StandardPayment.php `retrieve`: GET /verify-payment/{reference}, with the body `[]`.
        const verified = await send(base(), {
          method: 'GET',
          path: `/verify-payment/${txRef}`,
          headers: headers(),
          body: '[]',
        });
        assert.equal(verified.status, 200);
        // PendingPayment::fromArray, checkout.payment branch: it throws on any other event_type.
        const data = verified.body.data;
        assert.equal(data.event_type, 'checkout.payment');
        assert.equal(data.tx_ref, txRef);
        assert.equal(data.currency, 'MWK');
        assertFields(
          data,
          {
            amount: isInteger,
            mode: (v) => typeof v === 'string',
            type: (v) => typeof v === 'string',
            number_of_attempts: isInteger,
            reference: (v) => typeof v === 'string',
            charges: isInteger,
            meta: (v) => v === null || (typeof v === 'object' && !Array.isArray(v)),
            created_at: (v) => typeof v === 'string',
            updated_at: (v) => typeof v === 'string',
          },
          'PendingPayment::fromArray',
        );
        // ValueObjects/Authorization.php and Customization.php (strict_types): strings or null.
        for (const value of Object.values(data.authorization))
          assert.ok(isStringOrNull(value), JSON.stringify(data.authorization));
        assert.deepEqual(data.customization, { title: null, description: null, logo: null });
        // src/Customer.php: names and email, strings or null.
        assert.deepEqual(data.customer, { first_name: 'Jane', last_name: 'Banda', email: 'jane@example.com' });
        // ValueObjects/Log.php: type, message and created_at, each a string.
        for (const log of data.logs)
          for (const field of ['type', 'message', 'created_at']) assert.equal(typeof log[field], 'string');
        // StandardPayment.php `verify`: the payment counts when status is exactly "success".
        assert.equal(data.status, 'success');
      });
    });

    describe('the PHP client Alluvamz/php-paychangu-mobile', () => {
      // src/PayChanguIntegration.php: Guzzle with Accept and Content-Type on every request; the key only where the method adds it.
      const headers = (withKey: boolean) => ({
        ...GUZZLE,
        Accept: 'application/json',
        'Content-Type': 'application/json',
        ...(withKey ? { Authorization: bearer() } : {}),
      });

      test('mobile money: operators without a key, initialize, verify, details — each read into its typed record', async () => {
        // PayChanguIntegration.php `getMobileOperators`: GET mobile-money with no Authorization;
        // src/Data/MobileOperator.php reads id, name, ref_id, short_code, supports_withdrawals.
        const operators = await send(base(), { method: 'GET', path: '/mobile-money', headers: headers(false) });
        assert.equal(operators.status, 200);
        for (const operator of operators.body.data) {
          assertFields(
            operator,
            {
              id: isInteger,
              name: (v) => typeof v === 'string',
              ref_id: (v) => typeof v === 'string',
              short_code: (v) => typeof v === 'string',
              supports_withdrawals: (v) => typeof v === 'boolean',
            },
            'MobileOperator',
          );
        }
        const chargeId = uniqueRef('alluvamz');
        // `makeDirectCharge`: Guzzle's `json` option with src/Data/Request/ChargeMobileRequestData.php `toArray` (amount as text).
        const created = await send(base(), {
          method: 'POST',
          path: '/mobile-money/payments/initialize',
          headers: headers(true),
          body: phpJson({
            mobile: TEST_NUMBERS.airtelSuccess,
            charge_id: chargeId,
            amount: '1000',
            mobile_money_operator_ref_id: AIRTEL_REF,
          }),
        });
        assertAlluvamzReadsCharge(created, 'success');
        // `getDirectChargeStatus`: GET mobile-money/payments/{id}/verify.
        const verified = await settled(() => ({
          method: 'GET',
          path: `/mobile-money/payments/${chargeId}/verify`,
          headers: headers(true),
        }));
        assertAlluvamzReadsCharge(verified, 'successful');
        // `getDirectChargeDetails`: GET mobile-money/payments/{id}/details: the record needs `type`.
        const details = await send(base(), {
          method: 'GET',
          path: `/mobile-money/payments/${chargeId}/details`,
          headers: headers(true),
        });
        assertAlluvamzReadsCharge(details, 'success');
        assert.equal(details.body.data.status, 'success');
      });
    });

    describe('the Ruby gem dannysimfukwe/paychangugem', () => {
      // lib/paychangu.rb (httparty version, 0.2.x): Authorization and Accept set on the class;
      // `process_request` adds Content-Type only when there is a body.
      const headers = (withBody: boolean) => ({
        ...RUBY_NET_HTTP,
        Authorization: bearer(),
        Accept: 'application/json',
        ...(withBody ? { 'Content-Type': 'application/json' } : {}),
      });

      test('checkout: a payment link without title, description or logo sends their nulls; pay; verify_payment', async () => {
        const txRef = `rb${uniqueRef().replace(/-/g, '')}`;
        // lib/paychangu.rb `create_link_payload`: customization {title, description} from the
        // merchant's data (nil when unset), a top-level logo (nil when unset); README sends the amount as text.
        const created = await send(base(), {
          method: 'POST',
          path: '/payment',
          headers: headers(true),
          body: rubyJson({
            amount: '1000',
            currency: 'MWK',
            email: 'test@example.com',
            first_name: 'Danny',
            last_name: 'Simfukwe',
            callback_url: 'https://shop.example.com/paid',
            return_url: 'https://shop.example.com/cancelled',
            tx_ref: txRef,
            customization: { title: null, description: null },
            logo: null,
          }),
        });
        // `handle_response`: 2xx is the parsed hash; 400 raises BadRequestError with body['message'].
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(typeof created.body.data.checkout_url, 'string');
        await payAtCheckout(base(), created.body.data.checkout_url, TEST_NUMBERS.airtelSuccess);

        // `verify_payment`: GET /verify-payment/{tx_ref}, no body.
        const verified = await send(base(), {
          method: 'GET',
          path: `/verify-payment/${txRef}`,
          headers: headers(false),
        });
        assert.equal(verified.status, 200);
        assert.equal(verified.body.data.status, 'success');
        assert.equal(verified.body.data.amount, 1000);
        assert.match(verified.body.data.created_at, TIMESTAMP);
      });

      test("mobile money: its direct_charge_mobile_money path (POST /mobilemoney) is no PayChangu route, and the gem reads our 404's message", async () => {
        // lib/paychangu.rb `direct_charge_mobile_money`: API_ENDPOINTS[:direct_charge_momo] is
        // "mobilemoney", a path PayChangu does not have either (the gem's June 2025 additions call paths no PayChangu documentation has).
        const answered = await send(base(), {
          method: 'POST',
          path: '/mobilemoney',
          headers: headers(true),
          body: rubyJson({
            amount: '1000',
            currency: 'MWK',
            email: 'test@example.com',
            phone_number: TEST_NUMBERS.airtelSuccess,
            network: 'airtel',
            first_name: 'Danny',
            last_name: 'Simfukwe',
            tx_ref: 'abc',
          }),
        });
        // `handle_response` 404: NotFoundError with parsed['message'].
        assert.deepEqual(answered, {
          status: 404,
          body: { status: 'failed', message: 'Route not found.', data: null },
        });
      });
    });
  });
}
