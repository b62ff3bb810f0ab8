import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { CollectRequest, Connector, PayoutRequest, Step } from '../../src/connectors/connector.ts';
import { paychanguConnector } from '../../src/connectors/paychangu/paychangu-connector.ts';
import { SANDBOX_PAYER, SANDBOX_TRANSFER_BANK } from '../../src/connectors/sandbox/sandbox-provider.ts';
import { parseMalawiMobile, type MalawiMobile } from '../../src/shared/phone.ts';
import { startUpstreamPaychangu, type UpstreamPaychangu } from '../fakes/upstream-paychangu.ts';
import { NBM_UUID } from '../helpers/bank-payouts.ts';
import { openThreeDs } from '../helpers/cards.ts';
import { uniqueRef } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, freePort } from '../helpers/gateway.ts';
import { chargeRows, eventually, fundMainBalance, TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const mobile = (number: string): MalawiMobile => parseMalawiMobile(number)!;

const tnmCollect = (number: string, overrides: Partial<CollectRequest> = {}): CollectRequest =>
  ({
    reference: uniqueRef('chg'),
    amountMinor: 100_000,
    currency: 'MWK',
    method: 'mobile_money',
    mobile: mobile(number),
    ...overrides,
  }) as CollectRequest;

const cardCollect = (reference = uniqueRef('card')): CollectRequest => ({
  reference,
  amountMinor: 200_000,
  currency: 'MWK',
  method: 'card',
  card: { number: '4242424242424242', brand: 'VISA', expiry: '2040-12', cvv: '123' },
  cardholderName: 'Chikondi Banda',
  returnUrl: 'https://operator.example/3ds/return',
});

const bankPayout = (overrides: Partial<PayoutRequest> = {}): PayoutRequest =>
  ({
    reference: uniqueRef('pay'),
    amountMinor: 50_000,
    currency: 'MWK',
    method: 'bank',
    recipient: {
      bankUuid: NBM_UUID,
      bankName: 'National Bank of Malawi',
      accountName: 'Madalitso Kamwendo',
      accountNumber: '1001000010',
    },
    ...overrides,
  }) as PayoutRequest;

/** Asks `ask` until it gives a final step (the sandbox ends things after its short delay). */
function finalStep(what: string, ask: () => Promise<Step>): Promise<Step> {
  return eventually(what, async () => {
    const step = await ask();
    return step.status === 'pending' ? null : step;
  });
}

/** The webhook the upstream sent about `field` = `value`, as it arrived (raw body and headers). */
function webhookAbout(upstream: UpstreamPaychangu, field: string, value: string, eventType: string) {
  return eventually(`the ${eventType} webhook for ${value}`, async () =>
    upstream.webhooks.received.find((hook) => {
      const body = JSON.parse(hook.body);
      return body.event_type === eventType && body[field] === value;
    }),
  );
}

describe('PayChangu connector against a PayChangu-speaking upstream (a second Lipira in test mode)', () => {
  let upstream: UpstreamPaychangu;
  let paychangu: Connector;
  before(async () => {
    upstream = await startUpstreamPaychangu();
    paychangu = upstream.connector();
  });
  afterEach(() => assertLedgerBalanced(upstream.gw));
  after(() => upstream.close());

  test('a TNM Mpamba collect is pending with the upstream reference, and sync finds it successful', async () => {
    const request = tnmCollect(TEST_NUMBERS.tnmSuccess);
    const started = await paychangu.collect(request);
    assert.equal(started.status, 'pending');
    assert.match(String((started as { operatorId?: string }).operatorId), /^\d{11}$/);
    const ended = await finalStep('the charge to end', () =>
      paychangu.sync({ reference: request.reference, operatorId: null, method: 'mobile_money' }),
    );
    assert.deepEqual(ended, { status: 'success', operatorId: (started as { operatorId?: string }).operatorId });
    const [row] = await chargeRows(upstream.gw, upstream.merchant.id, request.reference);
    assert.equal(row?.operator, 'tnm', 'sent with TNM Mpamba’s operator id');
    assert.equal(row?.amount_minor, 100_000, 'sent in whole kwacha');
  });

  test('a declined TNM Mpamba collect syncs as failed', async () => {
    const request = tnmCollect(TEST_NUMBERS.tnmFailed);
    assert.equal((await paychangu.collect(request)).status, 'pending');
    const ended = await finalStep('the charge to end', () =>
      paychangu.sync({ reference: request.reference, operatorId: null, method: 'mobile_money' }),
    );
    assert.deepEqual(
      ended,
      { status: 'failed', reason: 'Payment failed: The mobile money payment was declined: insufficient balance.' },
      'the reason from the upstream record’s log',
    );
  });

  test('a charge the upstream never received syncs as pending, not failed', async () => {
    assert.deepEqual(await paychangu.sync({ reference: uniqueRef('chg'), operatorId: null, method: 'mobile_money' }), {
      status: 'pending',
      note: 'PayChangu has no record of it (yet)',
    });
    assert.equal((await paychangu.syncPayout({ reference: uniqueRef('pay'), operatorId: null })).status, 'pending');
  });

  test('a collect the upstream refuses by field (not a test number) is refused with its reason, and nothing is recorded there', async () => {
    const request = tnmCollect('0881234567');
    const step = await paychangu.collect(request);
    assert.equal(step.status, 'refused');
    assert.match((step as { reason: string }).reason, /^PayChangu refused it: Test mode only accepts the test numbers/);
    assert.deepEqual(await chargeRows(upstream.gw, upstream.merchant.id, request.reference), []);
  });

  test('an amount with a fraction of a kwacha is refused without asking the upstream', async () => {
    const request = tnmCollect(TEST_NUMBERS.tnmSuccess, { amountMinor: 100_050 });
    assert.deepEqual(await paychangu.collect(request), {
      status: 'refused',
      reason: 'PayChangu takes whole amounts only: this amount has a fraction of the currency unit.',
    });
    assert.deepEqual(await chargeRows(upstream.gw, upstream.merchant.id, request.reference), []);
  });

  test('a resend of the same reference is the same upstream charge, pending or ended', async () => {
    const request = tnmCollect(TEST_NUMBERS.tnmSuccess);
    const first = await paychangu.collect(request);
    const again = await paychangu.collect(request);
    assert.equal(again.status, 'pending');
    assert.equal((again as { operatorId?: string }).operatorId, (first as { operatorId?: string }).operatorId);
    await finalStep('the charge to end', () =>
      paychangu.sync({ reference: request.reference, operatorId: null, method: 'mobile_money' }),
    );
    // The upstream answers a resend of an ended charge as a duplicate: its state is read instead.
    assert.deepEqual(await paychangu.collect(request), {
      status: 'success',
      operatorId: (first as { operatorId?: string }).operatorId,
    });
    assert.equal((await chargeRows(upstream.gw, upstream.merchant.id, request.reference)).length, 1);
  });

  test('a bank transfer collect opens an account, and sync finds who paid', async () => {
    const request: CollectRequest = {
      reference: uniqueRef('bt'),
      amountMinor: 2_500_000,
      currency: 'MWK',
      method: 'bank_transfer',
      accountName: 'Mango Shop',
      expiresAt: Date.now() + 3_600_000,
    };
    const started = await paychangu.collect(request);
    assert.equal(started.status, 'pending');
    const { account } = started as { account?: { bankName: string; accountNumber: string } };
    assert.equal(account?.bankName, SANDBOX_TRANSFER_BANK);
    assert.match(String(account?.accountNumber), /^\d{10}$/);
    const ended = await finalStep('the transfer to arrive', () =>
      paychangu.sync({ reference: request.reference, operatorId: null, method: 'bank_transfer' }),
    );
    assert.equal(ended.status, 'success');
    assert.deepEqual((ended as { payer?: unknown }).payer, SANDBOX_PAYER);
  });

  test('a bank transfer of the wrong amount syncs as failed with its code', async () => {
    // The sandbox sends MWK 1 short for an amount ending in 13.
    const request: CollectRequest = {
      reference: uniqueRef('bt'),
      amountMinor: 101_300,
      currency: 'MWK',
      method: 'bank_transfer',
      accountName: 'Mango Shop',
      expiresAt: Date.now() + 3_600_000,
    };
    assert.equal((await paychangu.collect(request)).status, 'pending');
    const ended = await finalStep('the transfer to arrive', () =>
      paychangu.sync({ reference: request.reference, operatorId: null, method: 'bank_transfer' }),
    );
    assert.equal(ended.status, 'failed');
    assert.equal((ended as { code?: string }).code, 'wrong_amount');
    assert.match((ended as { reason: string }).reason, /only the exact amount/);
  });

  test('a card collect sends the customer to the upstream 3-D Secure page; once completed there, sync finds it paid and it can be refunded', async () => {
    const request = cardCollect();
    const started = await paychangu.collect(request);
    assert.equal(started.status, 'pending');
    const link = String((started as { redirectUrl?: string }).redirectUrl);
    assert.ok(link.startsWith(`${upstream.gw.url}/3ds/auth?reference=`), link);
    assert.equal(
      (await paychangu.sync({ reference: request.reference, operatorId: null, method: 'card' })).status,
      'pending',
      'waiting for the code',
    );

    const { client, path, page } = await openThreeDs(upstream.gw, link);
    assert.equal(page.status, 200);
    const confirmed = await client.post(path, { otp: '1234' });
    assert.equal(confirmed.status, 303);
    assert.ok(confirmed.location?.startsWith('https://operator.example/3ds/return?'), 'back to the return URL we gave');

    const ended = await paychangu.sync({ reference: request.reference, operatorId: null, method: 'card' });
    assert.equal(ended.status, 'success');

    const refund = {
      reference: uniqueRef('rf'),
      amountMinor: 50_000,
      currency: 'MWK',
      charge: {
        reference: request.reference,
        operatorId: null,
        method: 'card' as const,
        amountMinor: request.amountMinor,
      },
    };
    const handed = await paychangu.refund(refund);
    assert.equal(handed.status, 'pending');
    const done = await finalStep('the card refund to end', () =>
      paychangu.syncRefund({
        ...refund,
        operatorId: (handed as { operatorId?: string }).operatorId ?? null,
      }),
    );
    assert.equal(done.status, 'success');
  });

  test('a refund of a successful charge is pending, syncs as successful (also when its id was never recorded), and its webhook leads back to it', async () => {
    const charge = tnmCollect(TEST_NUMBERS.tnmSuccess);
    await paychangu.collect(charge);
    await finalStep('the charge to end', () =>
      paychangu.sync({ reference: charge.reference, operatorId: null, method: 'mobile_money' }),
    );

    const refund = {
      reference: uniqueRef('rf'),
      amountMinor: 40_000,
      currency: 'MWK',
      charge: {
        reference: charge.reference,
        operatorId: null,
        method: 'mobile_money' as const,
        amountMinor: charge.amountMinor,
      },
    };
    const handed = await paychangu.refund(refund);
    assert.equal(handed.status, 'pending');
    const refundId = (handed as { operatorId?: string }).operatorId;
    assert.ok(refundId, 'the upstream refund id');

    const done = await finalStep('the refund to end', () => paychangu.syncRefund({ ...refund, operatorId: refundId }));
    assert.deepEqual(done, { status: 'success', operatorId: refundId });
    assert.deepEqual(
      await paychangu.syncRefund({ ...refund, operatorId: null }),
      done,
      'found among the latest refunds by our reference',
    );
    assert.equal(
      (await paychangu.syncRefund({ ...refund, reference: uniqueRef('rf'), operatorId: null })).status,
      'pending',
      'a refund the upstream never saw',
    );

    const hook = await webhookAbout(upstream, 'refund_id', refundId, 'api.refund');
    assert.deepEqual(
      paychangu.verifyCallback({ headers: hook.headers, rawBody: hook.body, body: JSON.parse(hook.body) }),
      { status: 'accepted', flow: 'refund', reference: refund.reference },
    );
  });

  test('payouts to a wallet and to a bank end successfully, a resend is not a second payout, and one beyond the balance is refused', async () => {
    await fundMainBalance(upstream.gw, upstream.merchant, 100_000);

    const wallet: PayoutRequest = {
      reference: uniqueRef('pay'),
      amountMinor: 100_000,
      currency: 'MWK',
      method: 'mobile_money',
      mobile: mobile(TEST_NUMBERS.airtelSuccess),
    };
    const sent = await paychangu.payout(wallet);
    assert.equal(sent.status, 'success', 'the upstream pays a wallet at once');
    assert.deepEqual(await paychangu.syncPayout({ reference: wallet.reference, operatorId: null }), sent);

    const bank = bankPayout();
    const handed = await paychangu.payout(bank);
    assert.equal(handed.status, 'pending');
    const ended = await finalStep('the bank payout to end', () =>
      paychangu.syncPayout({ reference: bank.reference, operatorId: null }),
    );
    assert.equal(ended.status, 'success');

    const hook = await webhookAbout(upstream, 'charge_id', bank.reference, 'api.payout');
    assert.deepEqual(
      paychangu.verifyCallback({ headers: hook.headers, rawBody: hook.body, body: JSON.parse(hook.body) }),
      { status: 'accepted', flow: 'payout', reference: bank.reference },
    );

    assert.deepEqual(await paychangu.payout(bank), ended, 'the resend is answered from the record');
    assert.equal((await chargeRows(upstream.gw, upstream.merchant.id, bank.reference)).length, 1);

    const tnm: PayoutRequest = {
      reference: uniqueRef('pay'),
      amountMinor: 10_000,
      currency: 'MWK',
      method: 'mobile_money',
      mobile: mobile(TEST_NUMBERS.tnmSuccess),
    };
    assert.deepEqual(await paychangu.payout(tnm), {
      status: 'refused',
      reason: 'PayChangu refused it: The selected operator does not support payouts.',
    });
    const tnmThroughBanksList = bankPayout({
      amountMinor: 10_000,
      recipient: {
        bankUuid: '27494cb5-ba9e-437f-a114-4e7a7686bcca',
        bankName: 'TNM Mpamba',
        accountName: 'Chisomo Banda',
        accountNumber: mobile(TEST_NUMBERS.tnmSuccess).msisdn,
      },
    } as Partial<PayoutRequest>);
    assert.equal((await paychangu.payout(tnmThroughBanksList)).status, 'pending');
    assert.equal(
      (
        await finalStep('the TNM payout to end', () =>
          paychangu.syncPayout({ reference: tnmThroughBanksList.reference, operatorId: null }),
        )
      ).status,
      'success',
    );

    const tooMuch = await paychangu.payout(bankPayout({ amountMinor: 100_000_000 }));
    assert.deepEqual(tooMuch, {
      status: 'refused',
      reason: 'PayChangu refused it: The amount and its fee exceed the available balance.',
    });
  });

  test('a webhook signed with the webhook secret is accepted with our reference; a tampered, unsigned or wrongly keyed one is refused', async () => {
    const request = tnmCollect(TEST_NUMBERS.tnmSuccess);
    await paychangu.collect(request);
    const hook = await webhookAbout(upstream, 'charge_id', request.reference, 'api.charge.payment');
    const body = JSON.parse(hook.body);
    assert.deepEqual(paychangu.verifyCallback({ headers: hook.headers, rawBody: hook.body, body }), {
      status: 'accepted',
      flow: 'collect',
      reference: request.reference,
    });

    const tampered = hook.body.replace('"status":"success"', '"status":"failed"');
    assert.notEqual(tampered, hook.body);
    assert.deepEqual(
      paychangu.verifyCallback({ headers: hook.headers, rawBody: tampered, body: JSON.parse(tampered) }),
      { status: 'refused', reason: 'The callback signature does not match.' },
    );
    const { signature: _signature, ...unsigned } = hook.headers;
    assert.equal(paychangu.verifyCallback({ headers: unsigned, rawBody: hook.body, body }).status, 'refused');
    const otherKey = upstream.connector({ webhookSecret: 'whsec_someoneElse' });
    assert.equal(otherKey.verifyCallback({ headers: hook.headers, rawBody: hook.body, body }).status, 'refused');
    assert.equal(
      upstream.connector({ webhookSecret: null }).verifyCallback({ headers: hook.headers, rawBody: hook.body, body })
        .status,
      'refused',
    );
  });
});

describe('PayChangu connector when the upstream cannot answer', () => {
  const receivers: Receiver[] = [];
  after(() => Promise.all(receivers.map((receiver) => receiver.close())));

  /** A connector to a server answering every request with `reply`. */
  async function upstreamAnswering(
    reply: Parameters<typeof startReceiver>[0],
    timeoutMs = 2_000,
  ): Promise<{ paychangu: Connector; receiver: Receiver }> {
    const receiver = await startReceiver(reply);
    receivers.push(receiver);
    return {
      paychangu: paychanguConnector({
        url: new URL(receiver.url).origin,
        secretKey: 'sec-live-notARealKey0000000000000000000',
        webhookSecret: null,
        timeoutMs,
      }),
      receiver,
    };
  }

  test('nothing listening: every flow is pending, never failed or refused', async () => {
    const paychangu = paychanguConnector({
      url: `http://127.0.0.1:${await freePort()}`,
      secretKey: 'sec-live-notARealKey0000000000000000000',
      webhookSecret: null,
      timeoutMs: 2_000,
    });
    const collect = await paychangu.collect(tnmCollect(TEST_NUMBERS.tnmSuccess));
    assert.equal(collect.status, 'pending');
    assert.match((collect as { note: string }).note, /could not be reached/);
    assert.doesNotMatch((collect as { note: string }).note, /notARealKey/);
    assert.equal(
      (await paychangu.sync({ reference: 'chg_x', operatorId: null, method: 'mobile_money' })).status,
      'pending',
    );
    assert.equal((await paychangu.payout(bankPayout())).status, 'pending');
    assert.equal((await paychangu.syncPayout({ reference: 'pay_x', operatorId: null })).status, 'pending');
    assert.equal(
      (
        await paychangu.refund({
          reference: 'rf_x',
          amountMinor: 100,
          currency: 'MWK',
          charge: { reference: 'chg_x', operatorId: null, method: 'mobile_money', amountMinor: 100 },
        })
      ).status,
      'pending',
    );
  });

  test('an upstream that never answers is pending once the timeout passes', async () => {
    const { paychangu, receiver } = await upstreamAnswering(() => 'hang', 200);
    const step = await paychangu.collect(tnmCollect(TEST_NUMBERS.tnmSuccess));
    assert.deepEqual(step, { status: 'pending', note: 'PayChangu did not answer within 200 ms' });
    assert.equal(receiver.received.length, 1, 'sent once, never again');
    assert.equal(receiver.received[0]!.headers.authorization, 'Bearer sec-live-notARealKey0000000000000000000');
  });

  test('a 5xx or an answer that is not JSON is pending', async () => {
    const failing = await upstreamAnswering(() => ({ status: 502, body: '<html>Bad gateway</html>' }));
    assert.deepEqual(await failing.paychangu.payout(bankPayout()), {
      status: 'pending',
      note: 'PayChangu answered HTTP 502',
    });
    const garbled = await upstreamAnswering(() => ({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"status":"success","data":',
    }));
    assert.deepEqual(await garbled.paychangu.collect(tnmCollect(TEST_NUMBERS.tnmSuccess)), {
      status: 'pending',
      note: 'PayChangu answered something that could not be read',
    });
    assert.equal(
      (await garbled.paychangu.sync({ reference: 'chg_x', operatorId: null, method: 'card' })).status,
      'pending',
    );
  });

  test('a record whose status is neither success nor failed stays pending', async () => {
    const odd = await upstreamAnswering(() => ({
      status: 200,
      body: JSON.stringify({
        status: 'successful',
        message: 'ok',
        data: { status: 'cancelled', ref_id: '12345678901' },
      }),
    }));
    assert.deepEqual(await odd.paychangu.sync({ reference: 'chg_x', operatorId: null, method: 'mobile_money' }), {
      status: 'pending',
      note: 'PayChangu reports it cancelled',
      operatorId: '12345678901',
    });
  });
});
