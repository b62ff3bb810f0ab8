import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AIRTEL_CODES, codeMeaning } from '../../src/connectors/airtel/airtel-codes.ts';
import { airtelConnector, type AirtelOptions } from '../../src/connectors/airtel/airtel-connector.ts';
import type { Connector, Step } from '../../src/connectors/connector.ts';
import type { FailureCode } from '../../src/connectors/provider.ts';
import { parseMalawiMobile, type MalawiMobile } from '../../src/shared/phone.ts';
import { startFakeAirtel, type FakeAirtel } from '../fakes/airtel-server.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const CALLBACK_SECRET = 'callback-key-from-the-airtel-portal';

function mobile(number: string): MalawiMobile {
  const parsed = parseMalawiMobile(number);
  assert.ok(parsed);
  return parsed;
}

let sequence = 0;
/** A fresh reference and a fresh Airtel number, so that each test scripts only its own transaction. */
function fresh(): { reference: string; mobile: MalawiMobile; local: string } {
  sequence += 1;
  const local = `99${String(sequence).padStart(7, '0')}`;
  return { reference: `ch_${Date.now()}_${sequence}`, mobile: mobile(`0${local}`), local };
}

function assertStatus<S extends Step['status']>(step: Step, status: S): asserts step is Extract<Step, { status: S }> {
  assert.equal(step.status, status, `expected ${status}, got ${JSON.stringify(step)}`);
}

describe('Airtel Money connector against the fake Airtel', () => {
  let fake: FakeAirtel;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    fake = await startFakeAirtel({ callbackUrl: receiver.url, callbackSecret: CALLBACK_SECRET });
  });
  after(async () => {
    await fake.close();
    await receiver.close();
  });

  function connector(overrides: Partial<AirtelOptions> = {}): Connector {
    return airtelConnector({
      apiUrl: fake.url,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      country: 'MW',
      currency: 'MWK',
      disbursementPin: fake.disbursementPin,
      publicKeyPem: fake.publicKeyPem,
      callbackSecret: CALLBACK_SECRET,
      timeoutMs: 2_000,
      ...overrides,
    });
  }

  const collect = (airtel: Connector, payer: ReturnType<typeof fresh>, amountMinor = 150_000) =>
    airtel.collect({
      reference: payer.reference,
      amountMinor,
      currency: 'MWK',
      method: 'mobile_money',
      mobile: payer.mobile,
    });
  const sync = (airtel: Connector, reference: string) =>
    airtel.sync({ reference, operatorId: null, method: 'mobile_money' });
  const payout = (airtel: Connector, payee: ReturnType<typeof fresh>, amountMinor = 50_000) =>
    airtel.payout({
      reference: payee.reference,
      amountMinor,
      currency: 'MWK',
      method: 'mobile_money',
      mobile: payee.mobile,
    });
  const tokenRequests = () => fake.received('POST', '/auth/oauth2/token').length;
  const collections = (reference: string) =>
    fake
      .received('POST', '/merchant/v1/payments/')
      .filter((request) => (request.body as { transaction: { id: string } }).transaction.id === reference);
  const disbursements = (reference: string) =>
    fake
      .received('POST', '/standard/v1/disbursements/')
      .filter((request) => (request.body as { transaction: { id: string } }).transaction.id === reference);

  test('one token is fetched and reused, and every call carries it with the country and currency', async () => {
    const airtel = connector();
    const tokensBefore = tokenRequests();
    const first = fresh();
    const second = fresh();
    assertStatus(await collect(airtel, first), 'pending');
    assertStatus(await collect(airtel, second), 'pending');
    await sync(airtel, first.reference);
    assert.equal(tokenRequests() - tokensBefore, 1);

    const [sent] = collections(first.reference);
    assert.ok(sent);
    assert.match(String(sent.headers.authorization), /^Bearer fake-airtel-token-\d+$/);
    assert.equal(sent.headers['x-country'], 'MW');
    assert.equal(sent.headers['x-currency'], 'MWK');
    assert.deepEqual(sent.body, {
      reference: first.reference,
      subscriber: { country: 'MW', currency: 'MWK', msisdn: first.local },
      transaction: { amount: 1500, country: 'MW', currency: 'MWK', id: first.reference },
    });
  });

  test('calls made at once share one token request', async () => {
    const airtel = connector();
    const tokensBefore = tokenRequests();
    await Promise.all([1, 2, 3, 4, 5].map(() => sync(airtel, fresh().reference)));
    assert.equal(tokenRequests() - tokensBefore, 1);
  });

  test('a token refused mid-flight is renewed once and the refused call made again, once', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TS'] });
    assertStatus(await collect(airtel, payer), 'pending');
    const tokensBefore = tokenRequests();
    const enquiries = () => fake.received('GET', `/standard/v1/payments/${payer.reference}`).length;
    fake.revokeTokens();

    assertStatus(await sync(airtel, payer.reference), 'success');
    assert.equal(tokenRequests() - tokensBefore, 1);
    assert.equal(enquiries(), 2, 'the refused enquiry and its one repeat');
    assertStatus(await sync(airtel, payer.reference), 'success');
    assert.equal(tokenRequests() - tokensBefore, 1, 'the new token is kept');
  });

  test('a token that lives a second is renewed before it runs out', async () => {
    const shortLived = await startFakeAirtel({ tokenLifetimeSeconds: 1 });
    try {
      const airtel = airtelConnector(optionsFor(shortLived));
      await airtel.sync({ reference: 'nothing', operatorId: null });
      await sleep(800);
      const step = await airtel.sync({ reference: 'nothing', operatorId: null });
      assertStatus(step, 'pending');
      const tokens = shortLived.received('POST', '/auth/oauth2/token').length;
      assert.equal(tokens, 2);
      assert.equal(
        shortLived.requests.filter((request) => request.path.startsWith('/standard/')).length,
        2,
        'no call was refused for an expired token',
      );
    } finally {
      await shortLived.close();
    }
  });

  test('credentials Airtel refuses: the collection is refused, never sent, and the secret appears nowhere', async () => {
    const airtel = connector({ clientSecret: 'not-the-secret-123' });
    const payer = fresh();
    const step = await collect(airtel, payer);
    assertStatus(step, 'refused');
    assert.doesNotMatch(JSON.stringify(step), /not-the-secret-123/);
    assert.equal(collections(payer.reference).length, 0);
  });

  test('a USSD push approved by the customer: pending, in progress, then TS with the Airtel Money id', async () => {
    const airtel = connector();
    const payer = fresh();
    const started = await collect(airtel, payer);
    assertStatus(started, 'pending');
    assert.match(started.note, /DP00800001006/);
    const waiting = await sync(airtel, payer.reference);
    assertStatus(waiting, 'pending');
    assert.equal(waiting.note, 'TIP');
    const done = await sync(airtel, payer.reference);
    assertStatus(done, 'success');
    assert.equal(done.operatorId, fake.transaction(payer.reference)?.airtelMoneyId);
  });

  test('the customer approving after a delay: pending until then, TS after', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { approveAfterMs: 300 });
    assertStatus(await collect(airtel, payer), 'pending');
    assertStatus(await sync(airtel, payer.reference), 'pending');
    await sleep(350);
    assertStatus(await sync(airtel, payer.reference), 'success');
  });

  test('TA (ambiguous) then TS', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TA', 'TS'] });
    await collect(airtel, payer);
    const ambiguous = await sync(airtel, payer.reference);
    assertStatus(ambiguous, 'pending');
    assert.equal(ambiguous.note, 'TA');
    assertStatus(await sync(airtel, payer.reference), 'success');
  });

  test('TIP several times, then TS', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TIP', 'TIP', 'TIP', 'TS'] });
    await collect(airtel, payer);
    for (let enquiry = 0; enquiry < 3; enquiry++) assertStatus(await sync(airtel, payer.reference), 'pending');
    assertStatus(await sync(airtel, payer.reference), 'success');
  });

  /** Every failure code Airtel documents, with the FailureCode merchants and the hosted page get. */
  const FAILURES: Record<string, FailureCode> = {
    DP00800001002: 'wrong_pin',
    DP00800001003: 'limit_exceeded',
    DP00800001004: 'limit_exceeded',
    DP00800001005: 'timed_out',
    DP00800001007: 'insufficient_funds',
    DP00800001008: 'declined',
    DP00800001009: 'declined',
    DP00800001010: 'declined',
    DP00800001024: 'timed_out',
    DP00800001029: 'timed_out',
    DP00900001003: 'limit_exceeded',
    DP00900001004: 'limit_exceeded',
    DP00900001005: 'declined',
    DP00900001007: 'insufficient_funds',
    DP00900001009: 'declined',
    DP00900001010: 'declined',
    DP00900001012: 'declined',
    DP00900001013: 'declined',
    ESB000011: 'declined',
  };

  test('the table covers every failure code the connector knows', () => {
    const failing = AIRTEL_CODES.filter((code) => codeMeaning(code)?.outcome === 'failed');
    assert.deepEqual([...failing].sort(), Object.keys(FAILURES).sort());
  });

  for (const [code, expected] of Object.entries(FAILURES).filter(([code]) => code.startsWith('DP008'))) {
    test(`a collection that ends TF with ${code} fails as ${expected}`, async () => {
      const airtel = connector();
      const payer = fresh();
      fake.script(payer.local, { states: ['TF'], failureCode: code });
      assertStatus(await collect(airtel, payer), 'pending');
      const failed = await sync(airtel, payer.reference);
      assertStatus(failed, 'failed');
      assert.equal(failed.code, expected);
      assert.match(failed.reason, new RegExp(`^Airtel Money: .+ \\(${code}\\)\\.$`));
    });
  }

  for (const [code, expected] of Object.entries(FAILURES).filter(([code]) => !code.startsWith('DP008'))) {
    test(`a disbursement answered with ${code} inside a 200 fails as ${expected}`, async () => {
      const airtel = connector();
      const payee = fresh();
      fake.script(payee.local, { answer: { code } });
      const failed = await payout(airtel, payee);
      assertStatus(failed, 'failed');
      assert.equal(failed.code, expected);
      assert.match(failed.reason, new RegExp(`\\(${code}\\)\\.$`));
    });
  }

  test('the reason merchants read for a wrong PIN', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TF'], failureCode: 'DP00800001002' });
    await collect(airtel, payer);
    assert.deepEqual(await sync(airtel, payer.reference), {
      status: 'failed',
      reason: 'Airtel Money: wrong PIN (DP00800001002).',
      code: 'wrong_pin',
    });
  });

  test("a TF without a known code still fails, with Airtel's message", async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TF'], failureCode: 'DP00800001999' });
    await collect(airtel, payer);
    const failed = await sync(airtel, payer.reference);
    assertStatus(failed, 'failed');
    assert.equal(failed.code, 'declined');
    assert.equal(failed.reason, 'Airtel Money: the payment failed: failed (DP00800001999).');
  });

  test('an error inside a 200 answering the push: a failure code fails, an ambiguous code waits, a gateway code refuses', async () => {
    const airtel = connector();
    const poor = fresh();
    fake.script(poor.local, { answer: { code: 'DP00800001007', message: 'Not enough balance' } });
    assert.deepEqual(await collect(airtel, poor), {
      status: 'failed',
      reason: 'Airtel Money: not enough money in the wallet (DP00800001007).',
      code: 'insufficient_funds',
    });

    const ambiguous = fresh();
    fake.script(ambiguous.local, { answer: { code: 'DP00800001000' } });
    const waiting = await collect(airtel, ambiguous);
    assertStatus(waiting, 'pending');
    assert.match(waiting.note, /ambiguous.*DP00800001000/);

    const misconfigured = fresh();
    fake.script(misconfigured.local, { answer: { code: 'ROUTER005' } });
    assert.deepEqual(await collect(airtel, misconfigured), {
      status: 'refused',
      reason: 'Airtel Money: the country route is not configured (ROUTER005).',
    });
  });

  test('a 4xx validation answer is refused: nothing was taken', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, {
      answer: {
        httpStatus: 400,
        body: { status: { code: '400', message: 'Invalid Country', result_code: 'ESB000034', success: false } },
      },
    });
    assert.deepEqual(await collect(airtel, payer), {
      status: 'refused',
      reason: 'Airtel Money: invalid country (ESB000034).',
    });

    const other = fresh();
    fake.script(other.local, { answer: { httpStatus: 422, body: { error: 'unprocessable' } } });
    assert.deepEqual(await collect(airtel, other), {
      status: 'refused',
      reason: 'Airtel Money: the request was refused (HTTP 422).',
    });
  });

  test('an HTTP 500 or an unreadable body is pending, and the sync finds the payment', async () => {
    const airtel = connector();
    for (const answer of ['http500', 'unreadable'] as const) {
      const payer = fresh();
      fake.script(payer.local, { answer, states: ['TS'] });
      const step = await collect(airtel, payer);
      assertStatus(step, 'pending');
      assertStatus(await sync(airtel, payer.reference), 'success');
      assert.equal(collections(payer.reference).length, 1);
    }
  });

  test('a push whose answer never comes, though Airtel took the money: pending, then TS, sent exactly once', async () => {
    const airtel = connector({ timeoutMs: 300 });
    const payer = fresh();
    fake.script(payer.local, { answer: 'hang', states: ['TS'] });
    const step = await collect(airtel, payer);
    assertStatus(step, 'pending');
    assert.match(step.note, /TimeoutError/);
    const found = await sync(airtel, payer.reference);
    assertStatus(found, 'success');
    assert.equal(found.operatorId, fake.transaction(payer.reference)?.airtelMoneyId);
    assert.equal(collections(payer.reference).length, 1);
  });

  test('Airtel cannot be reached at all: pending, never a failure', async () => {
    const closed = await startFakeAirtel();
    const options = optionsFor(closed);
    await closed.close();
    const airtel = airtelConnector({ ...options, timeoutMs: 500 });
    const step = await airtel.sync({ reference: 'anything', operatorId: null });
    assertStatus(step, 'pending');
  });

  test('a collection Airtel has no record of stays pending', async () => {
    const step = await sync(connector(), 'never-sent');
    assertStatus(step, 'pending');
    assert.match(step.note, /DP00800001025/);
  });

  test('numbers of another operator and other methods are refused without a request', async () => {
    const airtel = connector();
    const requestsBefore = fake.requests.length;
    const tnm = await airtel.collect({
      reference: 'tnm',
      amountMinor: 1000,
      currency: 'MWK',
      method: 'mobile_money',
      mobile: mobile('0881234567'),
    });
    assertStatus(tnm, 'refused');
    const transfer = await airtel.collect({
      reference: 'card',
      amountMinor: 1000,
      currency: 'MWK',
      method: 'bank_transfer',
      accountName: 'Shop',
      expiresAt: Date.now(),
    });
    assertStatus(transfer, 'refused');
    assert.equal(fake.requests.length, requestsBefore);
  });

  test("a whole refund through Airtel's refund API; its answer lost, the payment's enquiry shows it reversed", async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TS'] });
    await collect(airtel, payer);
    const paid = await sync(airtel, payer.reference);
    assertStatus(paid, 'success');
    const refunded = await airtel.refund({
      reference: `re_${payer.reference}`,
      amountMinor: 150_000,
      currency: 'MWK',
      charge: {
        reference: payer.reference,
        operatorId: paid.operatorId,
        method: 'mobile_money',
        amountMinor: 150_000,
        payer: payer.mobile,
      },
    });
    assert.deepEqual(refunded, { status: 'success', operatorId: paid.operatorId });
    assert.deepEqual(fake.received('POST', '/standard/v1/payments/refund').at(-1)?.body, {
      transaction: { airtel_money_id: paid.operatorId },
    });
    assert.equal(disbursements(`re_${payer.reference}`).length, 0, 'a whole refund is no disbursement');

    const slow = connector({ timeoutMs: 300 });
    const other = fresh();
    fake.script(other.local, { states: ['TS'], refundAnswer: 'hang' });
    await collect(slow, other);
    const otherPaid = await sync(slow, other.reference);
    assertStatus(otherPaid, 'success');
    const refund = {
      reference: `re_${other.reference}`,
      amountMinor: 150_000,
      currency: 'MWK',
      charge: {
        reference: other.reference,
        operatorId: otherPaid.operatorId,
        method: 'mobile_money' as const,
        amountMinor: 150_000,
      },
    };
    assertStatus(await slow.refund(refund), 'pending');
    const found = await slow.syncRefund({ ...refund, operatorId: null });
    assertStatus(found, 'success');
    assert.equal(found.operatorId, otherPaid.operatorId);
  });

  test('a partial refund is a disbursement to the number that paid, under the refund reference, asked about as one', async () => {
    const airtel = connector();
    const payer = fresh();
    fake.script(payer.local, { states: ['TS'] });
    await collect(airtel, payer);
    const paid = await sync(airtel, payer.reference);
    assertStatus(paid, 'success');
    const charge = {
      reference: payer.reference,
      operatorId: paid.operatorId,
      method: 'mobile_money' as const,
      amountMinor: 150_000,
      payer: payer.mobile,
    };
    const refundsBefore = fake.received('POST', '/standard/v1/payments/refund').length;

    const part = { reference: `rfd_part_${sequence}`, amountMinor: 50_000, currency: 'MWK', charge };
    const given = await airtel.refund(part);
    assertStatus(given, 'success');
    const disbursement = fake.transaction(part.reference);
    assert.ok(disbursement, 'Airtel knows the disbursement by the refund reference');
    assert.equal(disbursement.kind, 'disbursement');
    assert.equal(given.operatorId, disbursement.airtelMoneyId, "the refund's operator id is the disbursement's");
    const [sent] = disbursements(part.reference);
    const body = sent?.body as { payee: unknown; reference: string; transaction: unknown };
    assert.deepEqual(body.payee, { msisdn: payer.local, wallet_type: 'NORMAL' }, 'to the number that paid');
    assert.equal(body.reference, part.reference);
    assert.deepEqual(body.transaction, { amount: 500, id: part.reference, type: 'B2C' });
    assert.equal(fake.received('POST', '/standard/v1/payments/refund').length, refundsBefore, 'not the refund API');
    assert.equal(fake.transaction(payer.reference)?.refunded, false, 'the payment is not reversed');

    const ambiguous = { ...part, reference: `rfd_ambiguous_${sequence}` };
    fake.script(ambiguous.reference, { answer: 'ambiguous', states: ['TA', 'TS'] });
    const unsure = await airtel.refund(ambiguous);
    assertStatus(unsure, 'pending');
    assert.match(unsure.note, /ambiguous.*DP00900001000/);
    const stillUnsure = await airtel.syncRefund({ ...ambiguous, operatorId: null });
    assertStatus(stillUnsure, 'pending');
    assert.match(stillUnsure.note, /TA/);
    const settled = await airtel.syncRefund({ ...ambiguous, operatorId: null });
    assertStatus(settled, 'success');
    assert.equal(settled.operatorId, fake.transaction(ambiguous.reference)?.airtelMoneyId);
    assert.deepEqual(
      await airtel.refund(ambiguous),
      { status: 'pending', operatorId: null, note: 'a transaction under this id already exists (DP00900001017)' },
      'sent again, Airtel knows the id and pays nothing more',
    );
    assert.equal(disbursements(ambiguous.reference).length, 2);

    const failing = { ...part, reference: `rfd_failing_${sequence}` };
    fake.script(failing.reference, { states: ['TF'], failureCode: 'DP00900001012' });
    assert.deepEqual(await airtel.refund(failing), {
      status: 'failed',
      reason: 'Airtel Money: the number is not a valid Airtel Money wallet (DP00900001012).',
      code: 'declined',
    });

    const requestsBefore = fake.requests.length;
    const noNumber = await airtel.refund({ ...part, reference: 'rfd_nonumber', charge: { ...charge, payer: null } });
    assertStatus(noNumber, 'refused');
    assert.match(noNumber.reason, /refund the whole payment instead/);
    const noPin = await connector({ disbursementPin: null }).refund({ ...part, reference: 'rfd_nopin' });
    assertStatus(noPin, 'refused');
    assert.equal(fake.requests.length, requestsBefore, 'refused before Airtel is asked');
  });

  test("a refund is refused without the payment's Airtel Money id, and a refused refund fails as Airtel says", async () => {
    const airtel = connector();
    const noId = await airtel.refund({
      reference: 're_x',
      amountMinor: 100,
      currency: 'MWK',
      charge: { reference: 'ch_x', operatorId: null, method: 'mobile_money', amountMinor: 100 },
    });
    assertStatus(noId, 'refused');
    const unknown = await airtel.refund({
      reference: 're_y',
      amountMinor: 100,
      currency: 'MWK',
      charge: { reference: 'ch_y', operatorId: 'MP-unknown', method: 'mobile_money', amountMinor: 100 },
    });
    assert.deepEqual(unknown, {
      status: 'failed',
      reason: 'Airtel Money: the payment was refused (DP00800001008).',
      code: 'declined',
    });
  });

  test("a disbursement with the PIN encrypted under Airtel's key succeeds at once", async () => {
    const airtel = connector();
    const payee = fresh();
    const paid = await payout(airtel, payee, 250_000);
    assertStatus(paid, 'success');
    assert.equal(paid.operatorId, fake.transaction(payee.reference)?.airtelMoneyId);
    const [sent] = disbursements(payee.reference);
    const body = sent?.body as { payee: unknown; pin: string; transaction: unknown; reference: string };
    assert.deepEqual(body.payee, { msisdn: payee.local, wallet_type: 'NORMAL' });
    assert.deepEqual(body.transaction, { amount: 2500, id: payee.reference, type: 'B2C' });
    assert.notEqual(body.pin, fake.disbursementPin);
    assert.equal(Buffer.from(body.pin, 'base64').length, 256, 'one RSA-2048 block');
  });

  test('a wrong disbursement PIN or an unusable key: refused, nothing paid', async () => {
    const wrongPin = fresh();
    const refused = await payout(connector({ disbursementPin: '0000' }), wrongPin);
    assert.deepEqual(refused, {
      status: 'refused',
      reason: 'Airtel Money: the disbursement PIN is incorrect (ROUTER115).',
    });
    assert.doesNotMatch(JSON.stringify(refused), /0000/);
    assert.equal(fake.transaction(wrongPin.reference), undefined);

    const requestsBefore = fake.requests.length;
    assertStatus(await payout(connector({ publicKeyPem: 'not a key' }), fresh()), 'refused');
    assertStatus(await payout(connector({ disbursementPin: null }), fresh()), 'refused');
    assert.equal(fake.requests.length, requestsBefore);
  });

  test('payouts go only to Airtel wallets', async () => {
    const airtel = connector();
    const requestsBefore = fake.requests.length;
    assertStatus(
      await airtel.payout({
        reference: 'po_tnm',
        amountMinor: 100,
        currency: 'MWK',
        method: 'mobile_money',
        mobile: mobile('0881234567'),
      }),
      'refused',
    );
    const bank = await airtel.payout({
      reference: 'po_bank',
      amountMinor: 100,
      currency: 'MWK',
      method: 'bank',
      recipient: { bankUuid: 'b', bankName: 'Bank', accountName: 'A', accountNumber: '1' },
    });
    assertStatus(bank, 'refused');
    assert.equal(fake.requests.length, requestsBefore);
  });

  test('a disbursement whose answer is lost: pending, the enquiry finds it paid, and it was sent once', async () => {
    const airtel = connector({ timeoutMs: 300 });
    const payee = fresh();
    fake.script(payee.local, { answer: 'hang', states: ['TS'] });
    assertStatus(await payout(airtel, payee), 'pending');
    const found = await airtel.syncPayout({ reference: payee.reference, operatorId: null });
    assertStatus(found, 'success');
    assert.equal(disbursements(payee.reference).length, 1);
  });

  test('a disbursement in process, then TS', async () => {
    const airtel = connector();
    const payee = fresh();
    fake.script(payee.local, { states: ['TIP', 'TS'] });
    const started = await payout(airtel, payee);
    assertStatus(started, 'pending');
    assert.match(started.note, /TIP/);
    assertStatus(await airtel.syncPayout({ reference: payee.reference, operatorId: null }), 'success');
  });

  describe('callbacks', () => {
    async function received(airtel: Connector, id: string, options: Parameters<FakeAirtel['sendCallback']>[1] = {}) {
      const count = receiver.received.length;
      await fake.sendCallback(id, options);
      const entry = receiver.received[count];
      assert.ok(entry);
      return airtel.verifyCallback({ headers: entry.headers, rawBody: entry.body, body: JSON.parse(entry.body) });
    }

    async function paidCollection(): Promise<string> {
      const payer = fresh();
      fake.script(payer.local, { states: ['TS'] });
      await collect(connector(), payer);
      return payer.reference;
    }

    test('with a good hash (over the payload or over the transaction alone) it is accepted for the collection', async () => {
      const id = await paidCollection();
      assert.deepEqual(await received(connector(), id), { status: 'accepted', flow: 'collect', reference: id });
      assert.deepEqual(await received(connector(), id, { hashTransactionOnly: true }), {
        status: 'accepted',
        flow: 'collect',
        reference: id,
      });
    });

    test('with a bad hash, a forged body or no hash it is refused when a secret is configured', async () => {
      const id = await paidCollection();
      assert.deepEqual(await received(connector(), id, { secret: 'another-key' }), {
        status: 'refused',
        reason: 'the callback hash does not match',
      });
      assert.deepEqual(await received(connector(), id, { tamper: true }), {
        status: 'refused',
        reason: 'the callback hash does not match',
      });
      assert.deepEqual(await received(connector(), id, { secret: null }), {
        status: 'refused',
        reason: 'the callback has no hash',
      });
    });

    test('without a configured secret a callback without a hash is accepted', async () => {
      const id = await paidCollection();
      assert.deepEqual(await received(connector({ callbackSecret: null }), id, { secret: null }), {
        status: 'accepted',
        flow: 'collect',
        reference: id,
      });
    });

    test('a duplicate callback is sent twice, each verified alike', async () => {
      const id = await paidCollection();
      const count = receiver.received.length;
      assert.deepEqual(await fake.sendCallback(id, { duplicate: true }), [200, 200]);
      const verdicts = receiver.received
        .slice(count)
        .map((entry) =>
          connector().verifyCallback({ headers: entry.headers, rawBody: entry.body, body: JSON.parse(entry.body) }),
        );
      assert.deepEqual(verdicts, [
        { status: 'accepted', flow: 'collect', reference: id },
        { status: 'accepted', flow: 'collect', reference: id },
      ]);
    });

    test("a body that is not Airtel's callback is refused", () => {
      assert.deepEqual(connector().verifyCallback({ headers: {}, rawBody: '{}', body: {} }), {
        status: 'refused',
        reason: 'not an Airtel Money callback',
      });
    });
  });
});

function optionsFor(fake: FakeAirtel): AirtelOptions {
  return {
    apiUrl: fake.url,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    country: 'MW',
    currency: 'MWK',
    disbursementPin: fake.disbursementPin,
    publicKeyPem: fake.publicKeyPem,
    callbackSecret: null,
    timeoutMs: 2_000,
  };
}
