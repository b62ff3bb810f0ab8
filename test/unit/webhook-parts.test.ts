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
  assert.throws(() => verifyWebhook(body, {}, SECRET, { now }), /No webhook signature/);
  const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
  assert.equal(verifyWebhook(body, rotated, SECRET, { now }).status, 'success', 'any of several signatures may match');
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
