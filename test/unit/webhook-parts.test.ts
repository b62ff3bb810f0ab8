import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from 'lipira';
import { nextRetry } from '../../src/shared/retry-schedule.ts';
import { privateAddressReason } from '../../src/webhooks/address-guard.ts';
import { parseRetryAfter } from '../../src/webhooks/http-sender.ts';
import { signWebhook } from '../../src/webhooks/signatures.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

test('what we sign, verifyWebhook accepts; anything changed, it refuses', () => {
  const body = JSON.stringify({ event_type: 'checkout.payment', status: 'success' });
  const now = 1_790_000_000_000;
  const headers = signWebhook(body, SECRET, 'msg_1', now / 1000);
  assert.deepEqual(verifyWebhook(body, headers, SECRET, { now }), { event_type: 'checkout.payment', status: 'success' });
  assert.deepEqual(verifyWebhook(Buffer.from(body), new Headers(headers), SECRET, { now }).status, 'success');
  assert.throws(() => verifyWebhook(`${body} `, headers, SECRET, { now }), WebhookVerificationError);
  assert.throws(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2', signature: 'f'.repeat(64) }, SECRET, { now }), WebhookVerificationError);
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: now + 301_000 }), /window/);
  assert.equal(verifyWebhook(body, headers, SECRET, { now: now + 301_000, toleranceSeconds: 600 }).status, 'success');
  assert.throws(() => verifyWebhook(body, {}, SECRET, { now }), /has no webhook-id, webhook-timestamp and webhook-signature/);
  const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
  assert.equal(verifyWebhook(body, rotated, SECRET, { now }).status, 'success', 'any of several signatures may match');
});

/** A webhook as we sent it at `sentAt` (ms), captured whole by someone on the way. */
function captured(sentAt: number) {
  const body = JSON.stringify({ event_type: 'checkout.payment', tx_ref: 'order-1', status: 'success' });
  return { body, headers: signWebhook(body, SECRET, 'msg_replayed', Math.floor(sentAt / 1000)) };
}

test('a captured webhook replayed after the window is refused, by whichever signature it is sent', () => {
  const sentAt = 1_790_000_000_000;
  const { body, headers } = captured(sentAt);
  const later = sentAt + 5 * 60_000 + 1_000;
  assert.equal(verifyWebhook(body, headers, SECRET, { now: sentAt + 4 * 60_000 }).status, 'success', 'within the default 5 minutes');
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: later }), /outside the allowed window/);
  const { signature, ...standardOnly } = headers;
  assert.throws(() => verifyWebhook(body, standardOnly, SECRET, { now: later }), /outside the allowed window/);
  assert.throws(() => verifyWebhook(body, { signature }, SECRET, { now: later }), /allowSignatureOnly/, 'stripped of its timestamp, it is refused too');
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: sentAt - 301_000 }), /window/, 'a timestamp from the future is no better');
  assert.equal(verifyWebhook(body, headers, SECRET, { now: later, toleranceSeconds: 600 }).status, 'success', 'toleranceSeconds widens the window');
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: sentAt + 2_000, toleranceSeconds: 1 }), /window/, 'and narrows it');
});

test('a fresh timestamp forged next to an old body and Signature is refused', () => {
  const sentAt = 1_790_000_000_000;
  const { body, headers } = captured(sentAt);
  const now = sentAt + 24 * 60 * 60_000;
  const fresh = String(Math.floor(now / 1000));
  const forgeries = [
    { signature: headers.signature, 'webhook-timestamp': fresh },
    { signature: headers.signature, 'webhook-id': 'msg_replayed', 'webhook-timestamp': fresh },
    { ...headers, 'webhook-timestamp': fresh },
  ];
  for (const forged of forgeries) {
    assert.throws(() => verifyWebhook(body, forged, SECRET, { now }), WebhookVerificationError, JSON.stringify(Object.keys(forged)));
    assert.throws(() => verifyWebhook(body, forged, SECRET, { now, allowSignatureOnly: true }), WebhookVerificationError, 'headers that are present are checked even then');
  }
});

test('a Signature-only webhook is refused by default and accepted with allowSignatureOnly', () => {
  const { body, headers } = captured(1_790_000_000_000);
  const legacy = { Signature: headers.signature! };
  assert.throws(() => verifyWebhook(body, legacy, SECRET), /allowSignatureOnly/);
  assert.throws(() => verifyWebhook(body, new Headers(legacy), SECRET), /allowSignatureOnly/);
  assert.equal(verifyWebhook(body, legacy, SECRET, { allowSignatureOnly: true }).tx_ref, 'order-1', 'at any age: nothing says when it was sent');
  assert.equal(verifyWebhook(body, new Headers(legacy), SECRET, { allowSignatureOnly: true }).tx_ref, 'order-1');
  assert.throws(() => verifyWebhook(`${body} `, legacy, SECRET, { allowSignatureOnly: true }), /No webhook signature/);
  assert.throws(() => verifyWebhook(body, legacy, 'whsec_other', { allowSignatureOnly: true }), /No webhook signature/);
  assert.throws(() => verifyWebhook(body, {}, SECRET, { allowSignatureOnly: true }), /No webhook signature/);
});

test('a header set missing a part, or a timestamp that is not whole seconds, is refused', () => {
  const sentAt = 1_790_000_000_000;
  const { body, headers } = captured(sentAt);
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
    const { [name]: _dropped, ...partial } = headers;
    assert.throws(() => verifyWebhook(body, partial, SECRET, { now: sentAt }), /all three are needed/, name);
  }
  for (const timestamp of ['', '1790000000.5', '-1790000000', '1e9', ' 1790000000']) {
    assert.throws(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': timestamp }, SECRET, { now: sentAt }), /window/, JSON.stringify(timestamp));
  }
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: sentAt, toleranceSeconds: Number.NaN }), TypeError);
});

test('retries follow the schedule with ±10 % jitter, honour Retry-After, then fail', () => {
  const schedule = [5_000, 300_000];
  assert.deepEqual(nextRetry(1, schedule, 0, null, () => 0.5), { status: 'pending', nextAttemptAt: 5_000 });
  assert.deepEqual(nextRetry(1, schedule, 0, null, () => 0), { status: 'pending', nextAttemptAt: 4_500 });
  assert.deepEqual(nextRetry(2, schedule, 0, null, () => 1), { status: 'pending', nextAttemptAt: 330_000 });
  assert.deepEqual(nextRetry(1, schedule, 0, 60_000, () => 0.5), { status: 'pending', nextAttemptAt: 60_000 });
  assert.deepEqual(nextRetry(3, schedule, 0), { status: 'failed' });
});

test('Retry-After in seconds or as a date, capped at a day', () => {
  assert.equal(parseRetryAfter('120'), 120_000);
  assert.equal(parseRetryAfter(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000), 30_000);
  assert.equal(parseRetryAfter('99999999'), 86_400_000);
  assert.equal(parseRetryAfter('soon'), null);
  assert.equal(parseRetryAfter(undefined), null);
});

test('non-public addresses are recognised, public ones pass', () => {
  for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1']) {
    assert.ok(privateAddressReason(address), address);
  }
  for (const address of ['8.8.8.8', '41.70.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
    assert.equal(privateAddressReason(address), null, address);
  }
});
