import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { useTestGateway } from '../helpers/gateway.ts';

/** Fastify's `/checkout/:id` is OpenAPI's `/checkout/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('the API reference', () => {
  const ctx = useTestGateway('sqlite');

  test('/openapi.json is a valid OpenAPI 3.1 document that covers every route the server serves', async () => {
    const response = await fetch(`${ctx.gw.url}/openapi.json`);
    assert.equal(response.status, 200);
    const doc = await response.json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));

    const served = ctx.gw.gateway.routes.filter((route) => !route.hidden && route.method !== 'HEAD');
    assert.ok(served.length >= 20);
    for (const route of served) {
      const operation = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${route.url} is missing from the document`);
      assert.ok(operation.summary, `${route.method} ${route.url} has a summary`);
      assert.ok(
        operation.responses && Object.keys(operation.responses).length > 0,
        `${route.method} ${route.url} documents its responses`,
      );
    }
  });

  test('every operation has a camelCase operationId of its own, says which key it takes, and documents the 429 of the limits', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const served = ctx.gw.gateway.routes.filter((route) => !route.hidden && route.method !== 'HEAD');
    const ids = new Set<string>();
    const schemeOf = { secret: 'bearerAuth', 'secret-or-body': 'bearerAuth', public: 'publicKeyAuth' } as const;
    for (const route of served) {
      const name = `${route.method} ${route.url}`;
      const operation = doc.paths[openApiPath(route.url)][route.method.toLowerCase()];
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${name}: its operationId`);
      assert.ok(!ids.has(operation.operationId), `${name}: ${operation.operationId} is used once`);
      ids.add(operation.operationId);
      assert.ok(Array.isArray(operation.security), `${name} says which key it takes, if any`);
      if (route.auth !== 'none' && route.url !== '/hosted-payment-page')
        assert.deepEqual(operation.security, [{ [schemeOf[route.auth]]: [] }], `${name}: its key`);
      // The HTML checkout answers its refusals as pages; every other 429 is the error envelope.
      const refused = operation.responses['429']?.content;
      assert.ok(refused?.['application/json'] ?? refused?.['text/html'], `${name}: 429`);
    }
    const names = (method: string, path: string) => doc.paths[path][method].operationId;
    assert.equal(names('post', '/payment'), 'createCheckoutSession');
    assert.equal(names('get', '/verify-payment/{tx_ref}'), 'verifyPayment');
    assert.equal(names('post', '/test-helpers/direct-charges/{charge_id}/complete'), 'completeDirectCharge');
    assert.equal(
      doc.paths['/payment'].post.responses['429'].content['application/json'].schema.$ref,
      '#/components/schemas/ErrorEnvelope',
    );
    assert.deepEqual(doc.paths['/healthz'].get.security, [], 'a probe needs no key');
    assert.deepEqual(
      doc.paths['/metrics'].get.security,
      [{ metricsToken: [] }, {}],
      'the metrics token, when one is set',
    );
    assert.equal(doc.paths['/checkout/assets/{file}'], undefined, "the page's own files are not API");
    assert.equal(doc.paths['/sandbox/sandbox.css'], undefined);
    const meta = doc.paths['/payment'].post.requestBody.content['application/json'].schema.properties.meta;
    assert.equal(meta['x-maxJsonBytes'], 8192, 'the limit of meta is an extension');
    assert.equal(meta.maxJsonBytes, undefined, 'not a keyword OpenAPI does not know');
  });

  test('both generations, their request and response schemas, the errors and the security are documented', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const current = doc.paths['/payment'].post;
    assert.deepEqual(current.security, [{ bearerAuth: [] }]);
    assert.deepEqual(current.requestBody.content['application/json'].schema.required, [
      'callback_url',
      'return_url',
      'tx_ref',
      'first_name',
      'currency',
      'amount',
    ]);
    assert.ok(current.responses['201'].content['application/json'].schema.properties.data);
    assert.ok(current.responses['400'], 'validation errors');
    assert.ok(current.responses['401'], 'bad keys');
    const legacy = doc.paths['/api/payment'].post;
    assert.deepEqual(legacy.requestBody.content['application/json'].schema.required, [
      'first_name',
      'last_name',
      'email',
      'currency',
      'amount',
      'customization',
    ]);
    assert.ok(doc.paths['/api/verify-payment/{tx_ref}'].get.responses['200']);
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
    assert.ok(doc.components.schemas.ErrorEnvelope, 'the error envelope is a shared component');
    assert.deepEqual(doc.paths['/mobile-money'].get.security, [], 'the operator list needs no key');
  });

  test('the payout routes through the banks list are documented with example requests and answers', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const operations = [
      ['post', '/direct-charge/payouts/initialize', '201', 'success'],
      ['get', '/direct-charge/payouts/supported-banks', '200', 'success'],
      ['get', '/direct-charge/payouts/{charge_id}/details', '200', 'successful'],
      ['get', '/direct-charge/payouts', '200', 'success'],
    ] as const;
    for (const [method, path, status, envelopeStatus] of operations) {
      const operation = doc.paths[path][method];
      assert.deepEqual(operation.security, [{ bearerAuth: [] }], `${path} needs a secret key`);
      const answer = operation.responses[status].content['application/json'];
      assert.equal(answer.example.status, envelopeStatus, `${path} shows an example answer`);
      assert.ok(answer.example.data, `${path}: the example has data`);
    }
    const request = doc.paths['/direct-charge/payouts/initialize'].post.requestBody.content['application/json'];
    assert.equal(request.example.payout_method, 'bank_transfer');
    assert.deepEqual(request.schema.required, [
      'payout_method',
      'bank_uuid',
      'amount',
      'charge_id',
      'bank_account_name',
      'bank_account_number',
    ]);
  });

  test('the bank transfer routes are documented with example requests and answers', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    for (const [method, path, status] of [
      ['post', '/direct-charge/payments/initialize', '201'],
      ['get', '/direct-charge/transactions/{charge_id}/details', '200'],
    ] as const) {
      const operation = doc.paths[path][method];
      assert.deepEqual(operation.security, [{ bearerAuth: [] }], `${path} needs a secret key`);
      const answer = operation.responses[status].content['application/json'];
      assert.equal(answer.example.status, 'success', `${path} shows an example answer`);
      assert.ok(answer.example.data.transaction, `${path}: the example has its transaction`);
    }
    const request = doc.paths['/direct-charge/payments/initialize'].post.requestBody.content['application/json'];
    assert.equal(request.example.payment_method, 'mobile_bank_transfer');
    assert.deepEqual(request.schema.required, ['payment_method', 'amount', 'currency', 'charge_id']);
  });

  test('every operation sits in exactly one group of the reference, the groups listed in order', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const groups = [
      'Checkout',
      'Mobile money',
      'Payouts',
      'Bank transfer',
      'Refunds',
      'Cards',
      'Payment links',
      'Balance',
      'Webhooks',
      'Events',
      'Operator callbacks',
      'Operations',
      'Test helpers',
      'Sandbox',
    ];
    assert.deepEqual(
      doc.tags.map((tag: { name: string }) => tag.name),
      groups,
    );
    for (const [path, operations] of Object.entries<Record<string, { tags?: string[] }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        assert.equal(operation.tags?.length, 1, `${method.toUpperCase()} ${path} is in one group`);
        assert.ok(
          groups.includes(operation.tags[0]!),
          `${method.toUpperCase()} ${path}: unknown group ${operation.tags[0]}`,
        );
      }
    }
    const groupOf = (method: string, path: string) => doc.paths[path][method].tags[0];
    assert.equal(groupOf('get', '/events/stream'), 'Events');
    assert.ok(doc.paths['/events/stream'].get.responses['200'].content['text/event-stream'], 'the stream is SSE');
    assert.equal(groupOf('post', '/payment'), 'Checkout');
    assert.equal(groupOf('get', '/api/verify-payment/{tx_ref}'), 'Checkout');
    assert.equal(groupOf('get', '/checkout/{id}'), 'Checkout');
    assert.equal(groupOf('post', '/mobile-money/payments/initialize'), 'Mobile money');
    assert.equal(groupOf('post', '/mobile-money/payouts/initialize'), 'Payouts');
    assert.equal(groupOf('post', '/direct-charge/payments/initialize'), 'Bank transfer');
    assert.equal(groupOf('get', '/direct-charge/transactions/{charge_id}/details'), 'Bank transfer');
    assert.equal(groupOf('post', '/checkout/{id}/pay/bank-transfer'), 'Checkout');
    assert.equal(groupOf('get', '/wallet-balance'), 'Balance');
    assert.equal(groupOf('post', '/payment-links'), 'Payment links');
    assert.equal(groupOf('get', '/payment-links/{id}/payments'), 'Payment links');
    assert.equal(groupOf('get', '/webhooks/deliveries'), 'Webhooks');
    assert.equal(groupOf('post', '/callbacks/{connector}'), 'Operator callbacks');
    assert.equal(groupOf('get', '/readyz'), 'Operations');
    assert.equal(groupOf('post', '/refunds'), 'Refunds');
    assert.equal(groupOf('post', '/charge-card/refund/{charge_id}'), 'Refunds');
    assert.equal(groupOf('post', '/charge-card/payments'), 'Cards');
    assert.equal(groupOf('get', '/charge-card/verify/{charge_id}'), 'Cards');
    assert.equal(groupOf('get', '/3ds/auth'), 'Cards');
    assert.equal(groupOf('post', '/3ds/auth'), 'Cards');
    assert.equal(groupOf('post', '/test-helpers/settlements/run'), 'Test helpers');
    assert.equal(groupOf('post', '/sandbox/webhook'), 'Sandbox');
  });

  test('the card routes are documented with example requests and answers; the 3-D Secure page needs no key', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const charge = doc.paths['/charge-card/payments'].post;
    assert.deepEqual(charge.security, [{ bearerAuth: [] }]);
    const request = charge.requestBody.content['application/json'];
    assert.equal(request.example.card_number, '4242 4242 4242 4242');
    assert.deepEqual(request.schema.required, [
      'card_number',
      'expiry',
      'cvv',
      'cardholder_name',
      'amount',
      'currency',
      'charge_id',
      'redirect_url',
    ]);
    assert.deepEqual(Object.keys(charge.responses['200'].content['application/json'].example).sort(), [
      '3ds_auth_link',
      'orderReference',
      'requires_3ds_auth',
      'success',
    ]);
    const verify = doc.paths['/charge-card/verify/{charge_id}'].get;
    assert.deepEqual(verify.security, [{ bearerAuth: [] }]);
    const verified = verify.responses['200'].content['application/json'].example;
    assert.equal(verified.status, 'success');
    assert.equal(verified.data.authorization.channel, 'Card');
    for (const method of ['get', 'post']) {
      const page = doc.paths['/3ds/auth'][method];
      assert.deepEqual(page.security, [], `${method} /3ds/auth is the customer's: no key`);
      assert.ok(page.responses['404'].content['text/html'], 'an unknown or expired link answers a page');
    }
  });

  test('the refund routes are documented with their bodies, answers and an example of each', async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const media = (
      operation: {
        requestBody?: { content: Record<string, unknown> };
        responses: Record<string, { content: Record<string, unknown> }>;
      },
      status?: string,
    ) =>
      (status ? operation.responses[status]! : operation.requestBody!).content['application/json'] as {
        schema: { properties: Record<string, unknown> };
        example?: unknown;
        examples?: unknown;
      };
    const created = doc.paths['/refunds'].post;
    assert.deepEqual(created.security, [{ bearerAuth: [] }]);
    assert.deepEqual(Object.keys(media(created).schema.properties), [
      'charge_id',
      'tx_ref',
      'amount',
      'currency',
      'reason',
    ]);
    assert.ok(media(created).examples, 'examples of a refund by tx_ref and by charge_id');
    const card = doc.paths['/charge-card/refund/{charge_id}'].post;
    assert.deepEqual(Object.keys(media(card).schema.properties), ['amount', 'currency', 'reason']);
    assert.match(card.requestBody.description, /no body/);
    for (const [operation, status] of [
      [created, '201'],
      [card, '200'],
      [doc.paths['/refunds/{refund_id}'].get, '200'],
      [doc.paths['/refunds'].get, '200'],
    ] as const) {
      assert.ok(operation.summary);
      assert.ok(operation.responses['401'] && operation.responses['404'], 'errors documented');
      const answer = media(operation, status) as { example: { data: unknown } };
      const record = (Array.isArray(answer.example.data) ? answer.example.data[0] : answer.example.data) as Record<
        string,
        unknown
      >;
      assert.deepEqual(Object.keys(record).sort(), [
        'amount',
        'charge_id',
        'completed_at',
        'created_at',
        'currency',
        'pending_reason',
        'reason',
        'refund_id',
        'status',
        'trans_id',
      ]);
    }
    const verified =
      doc.paths['/verify-payment/{tx_ref}'].get.responses['200'].content['application/json'].schema.properties.data
        .properties;
    assert.ok(verified.refunded_amount && verified.refund_status, 'verification documents what was refunded');
  });

  test("the browser integrations are documented under Checkout: the popup's create with a public key, the HTML form and the script", async () => {
    const doc = await (await fetch(`${ctx.gw.url}/openapi.json`)).json();
    const popup = doc.paths['/popup/payment'].post;
    assert.deepEqual(popup.security, [{ publicKeyAuth: [] }]);
    assert.match(doc.components.securitySchemes.publicKeyAuth.description, /pub-test-/);
    assert.ok(popup.responses['201'].content['application/json'].schema.properties.data);
    const form = doc.paths['/hosted-payment-page'].post;
    assert.deepEqual(form.security, [], 'the key is a field of the form');
    const fields = form.requestBody.content['application/x-www-form-urlencoded'];
    assert.ok(fields.schema.properties.public_key, 'the form documents its key');
    assert.ok(fields.example.public_key, 'and shows an example form');
    assert.ok(
      form.responses['302'] && form.responses['400'].content['text/html'] && form.responses['401'].content['text/html'],
    );
    assert.ok(doc.paths['/js/popup.js'].get.responses['200'].content['text/javascript']);
    for (const operation of [popup, form, doc.paths['/js/popup.js'].get])
      assert.deepEqual(operation.tags, ['Checkout']);
  });

  test('/docs serves a readable reference from the package, with no third-party asset', async () => {
    const page = await fetch(`${ctx.gw.url}/docs/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /swagger-ui/i);
    const external = [...html.matchAll(/(?:src|href)="(https?:)?\/\/[^"]+"/g)].map((match) => match[0]);
    assert.deepEqual(external, [], 'every asset comes from our own origin');
  });
});
