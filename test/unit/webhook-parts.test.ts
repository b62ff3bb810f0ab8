import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from 'lipira';
import { nextRetry } from '../../src/shared/retry-schedule.ts';
import { addressKind, refusalReason, type AddressKind } from '../../src/webhooks/address-guard.ts';
import { parseIPv4, parseIPv6 } from '../../src/webhooks/ip-address.ts';
import { parseRetryAfter } from '../../src/webhooks/http-sender.ts';
import { signWebhook } from '../../src/webhooks/signatures.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

test('what we sign, verifyWebhook accepts; anything changed, it refuses', () => {
  const body = JSON.stringify({ event_type: 'checkout.payment', status: 'success' });
  const now = 1_790_000_000_000;
  const headers = signWebhook(body, [SECRET], 'msg_1', now / 1000);
  assert.deepEqual(verifyWebhook(body, headers, SECRET, { now }), {
    event_type: 'checkout.payment',
    status: 'success',
  });
  assert.deepEqual(verifyWebhook(Buffer.from(body), new Headers(headers), SECRET, { now }).status, 'success');
  assert.throws(() => verifyWebhook(`${body} `, headers, SECRET, { now }), WebhookVerificationError);
  assert.throws(
    () => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2', signature: 'f'.repeat(64) }, SECRET, { now }),
    WebhookVerificationError,
  );
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: now + 301_000 }), /window/);
  assert.equal(verifyWebhook(body, headers, SECRET, { now: now + 301_000, toleranceSeconds: 600 }).status, 'success');
  assert.throws(
    () => verifyWebhook(body, {}, SECRET, { now }),
    /has no webhook-id, webhook-timestamp and webhook-signature/,
  );
  const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
  assert.equal(verifyWebhook(body, rotated, SECRET, { now }).status, 'success', 'any of several signatures may match');
});

/** A webhook as we sent it at `sentAt` (ms), captured whole by someone on the way. */
function captured(sentAt: number) {
  const body = JSON.stringify({ event_type: 'checkout.payment', tx_ref: 'order-1', status: 'success' });
  return { body, headers: signWebhook(body, [SECRET], 'msg_replayed', Math.floor(sentAt / 1000)) };
}

test('a captured webhook replayed after the window is refused, by whichever signature it is sent', () => {
  const sentAt = 1_790_000_000_000;
  const { body, headers } = captured(sentAt);
  const later = sentAt + 5 * 60_000 + 1_000;
  assert.equal(
    verifyWebhook(body, headers, SECRET, { now: sentAt + 4 * 60_000 }).status,
    'success',
    'within the default 5 minutes',
  );
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: later }), /outside the allowed window/);
  const { signature, ...standardOnly } = headers;
  assert.throws(() => verifyWebhook(body, standardOnly, SECRET, { now: later }), /outside the allowed window/);
  assert.throws(
    () => verifyWebhook(body, { signature }, SECRET, { now: later }),
    /allowSignatureOnly/,
    'stripped of its timestamp, it is refused too',
  );
  assert.throws(
    () => verifyWebhook(body, headers, SECRET, { now: sentAt - 301_000 }),
    /window/,
    'a timestamp from the future is no better',
  );
  assert.equal(
    verifyWebhook(body, headers, SECRET, { now: later, toleranceSeconds: 600 }).status,
    'success',
    'toleranceSeconds widens the window',
  );
  assert.throws(
    () => verifyWebhook(body, headers, SECRET, { now: sentAt + 2_000, toleranceSeconds: 1 }),
    /window/,
    'and narrows it',
  );
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
    assert.throws(
      () => verifyWebhook(body, forged, SECRET, { now }),
      WebhookVerificationError,
      JSON.stringify(Object.keys(forged)),
    );
    assert.throws(
      () => verifyWebhook(body, forged, SECRET, { now, allowSignatureOnly: true }),
      WebhookVerificationError,
      'headers that are present are checked even then',
    );
  }
});

test('a Signature-only webhook is refused by default and accepted with allowSignatureOnly', () => {
  const { body, headers } = captured(1_790_000_000_000);
  const legacy = { Signature: headers.signature! };
  assert.throws(() => verifyWebhook(body, legacy, SECRET), /allowSignatureOnly/);
  assert.throws(() => verifyWebhook(body, new Headers(legacy), SECRET), /allowSignatureOnly/);
  assert.equal(
    verifyWebhook(body, legacy, SECRET, { allowSignatureOnly: true }).tx_ref,
    'order-1',
    'at any age: nothing says when it was sent',
  );
  assert.equal(verifyWebhook(body, new Headers(legacy), SECRET, { allowSignatureOnly: true }).tx_ref, 'order-1');
  assert.throws(() => verifyWebhook(`${body} `, legacy, SECRET, { allowSignatureOnly: true }), /No webhook signature/);
  assert.throws(() => verifyWebhook(body, legacy, 'whsec_other', { allowSignatureOnly: true }), /No webhook signature/);
  assert.throws(() => verifyWebhook(body, {}, SECRET, { allowSignatureOnly: true }), /No webhook signature/);
});

test("during a roll's overlap: a Standard Webhooks signature per secret, Signature the newest's; verifyWebhook takes either secret, or both", () => {
  const OLD = 'whsec_T2xkU2VjcmV0T2xkU2VjcmV0T2xkU2VjcmV0';
  const body = JSON.stringify({ event_type: 'api.refund', status: 'success' });
  const now = 1_790_000_000_000;
  const headers = signWebhook(body, [SECRET, OLD], 'msg_rolled', now / 1000);
  const parts = headers['webhook-signature']!.split(' ');
  assert.equal(parts.length, 2);
  assert.deepEqual(parts, [
    signWebhook(body, [SECRET], 'msg_rolled', now / 1000)['webhook-signature'],
    signWebhook(body, [OLD], 'msg_rolled', now / 1000)['webhook-signature'],
  ]);
  assert.equal(headers.signature, signWebhook(body, [SECRET], 'msg_rolled', now / 1000).signature, 'the newest only');
  for (const secret of [SECRET, OLD, [OLD, SECRET], ['whsec_other', SECRET]])
    assert.equal(verifyWebhook(body, headers, secret, { now }).status, 'success', JSON.stringify(secret));
  assert.throws(() => verifyWebhook(body, headers, 'whsec_other', { now }), /No webhook signature/);
  assert.throws(() => verifyWebhook(body, headers, [], { now }), /No webhook signature/);

  const legacy = { Signature: headers.signature! };
  assert.throws(() => verifyWebhook(body, legacy, OLD, { allowSignatureOnly: true }), /No webhook signature/);
  assert.equal(verifyWebhook(body, legacy, [OLD, SECRET], { allowSignatureOnly: true }).status, 'success');
});

test('a header set missing a part, or a timestamp that is not whole seconds, is refused', () => {
  const sentAt = 1_790_000_000_000;
  const { body, headers } = captured(sentAt);
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
    const { [name]: _dropped, ...partial } = headers;
    assert.throws(() => verifyWebhook(body, partial, SECRET, { now: sentAt }), /all three are needed/, name);
  }
  for (const timestamp of ['', '1790000000.5', '-1790000000', '1e9', ' 1790000000']) {
    assert.throws(
      () => verifyWebhook(body, { ...headers, 'webhook-timestamp': timestamp }, SECRET, { now: sentAt }),
      /window/,
      JSON.stringify(timestamp),
    );
  }
  assert.throws(() => verifyWebhook(body, headers, SECRET, { now: sentAt, toleranceSeconds: Number.NaN }), TypeError);
});

test('retries follow the schedule with ±10 % jitter, honour Retry-After, then fail', () => {
  const schedule = [5_000, 300_000];
  assert.deepEqual(
    nextRetry(1, schedule, 0, null, () => 0.5),
    { status: 'pending', nextAttemptAt: 5_000 },
  );
  assert.deepEqual(
    nextRetry(1, schedule, 0, null, () => 0),
    { status: 'pending', nextAttemptAt: 4_500 },
  );
  assert.deepEqual(
    nextRetry(2, schedule, 0, null, () => 1),
    { status: 'pending', nextAttemptAt: 330_000 },
  );
  assert.deepEqual(
    nextRetry(1, schedule, 0, 60_000, () => 0.5),
    { status: 'pending', nextAttemptAt: 60_000 },
  );
  assert.deepEqual(nextRetry(3, schedule, 0), { status: 'failed' });
});

test('Retry-After in seconds or as a date, capped at a day', () => {
  assert.equal(parseRetryAfter('120', Date.now()), 120_000);
  assert.equal(parseRetryAfter(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000), 30_000);
  assert.equal(parseRetryAfter('99999999', Date.now()), 86_400_000);
  assert.equal(parseRetryAfter('soon', Date.now()), null);
  assert.equal(parseRetryAfter(undefined, Date.now()), null);
});

/** Every form an address may take to reach a webhook sender, and what the guard must make of it. */
const ADDRESSES: Array<[address: string, kind: AddressKind | null]> = [
  ['8.8.8.8', 'public'],
  ['41.70.0.1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'private'],
  ['100.64.0.1', 'private'],
  ['0.0.0.0', 'private'],
  ['224.0.0.1', 'private'],
  ['255.255.255.255', 'private'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'private'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['fe80::1', 'private'],
  ['fe80::1%eth0', 'private'],
  ['fd00::1', 'private'],
  ['fc00::1', 'private'],
  ['fec0::1', 'private'],
  ['ff02::1', 'private'],
  ['100::1', 'private'],
  ['2001:db8::1', 'private'],
  // IPv4-compatible ::/96: deprecated, and some stacks still route it to the IPv4 it ends with.
  ['::127.0.0.1', 'private'],
  ['::7f00:1', 'private'],
  ['::8.8.8.8', 'private'],
  // IPv4-mapped ::ffff:0:0/96, in any notation, judged by the IPv4 it carries.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['0000:0000:0000:0000:0000:ffff:127.0.0.1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'private'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:808:808', 'public'],
  // 6to4 2002::/16 carries an IPv4 in its next 32 bits.
  ['2002:7f00:1::', 'loopback'],
  ['2002:a00:1::1', 'private'],
  ['2002:a9fe:a9fe::', 'private'],
  ['2002:808:808::1', 'public'],
  // Teredo 2001::/32 tunnels to an IPv4 it hides (obfuscated): never a destination.
  ['2001::1', 'private'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'private'],
  // NAT64 64:ff9b::/96 is judged by the IPv4 in it (a public one is a legitimate DNS64 answer); local-use 64:ff9b:1::/48 is never public.
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', 'private'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::808:808', 'private'],
  ['64:ff9b:1:ffff::1', 'private'],
  // Not IP addresses at all.
  ['localhost', null],
  ['example.com', null],
  ['1.2.3', null],
  ['01.2.3.4', null],
  ['256.1.1.1', null],
  ['1::2::3', null],
  ['1:2:3:4:5:6:7:8:9', null],
  ['1:2:3:4:5:6:7', null],
  ['::ffff:1.2.3', null],
  ['12345::1', null],
  [':1::', null],
  ['', null],
];

test('the address guard knows each address by what it means, however it is written', () => {
  for (const [address, kind] of ADDRESSES) assert.equal(addressKind(address), kind, address);
});

test('a webhook may go to public addresses; to loopback only when allowed; never to any other', () => {
  for (const [address, kind] of ADDRESSES) {
    const strict = refusalReason(address, { allowLoopback: false });
    const loose = refusalReason(address, { allowLoopback: true });
    assert.equal(strict === null, kind === 'public', address);
    assert.equal(loose === null, kind === 'public' || kind === 'loopback', address);
  }
  assert.match(refusalReason('::ffff:7f00:1', { allowLoopback: false })!, /is not a public address/);
  assert.match(refusalReason('example.com', { allowLoopback: true })!, /is not an IP address/);
});

test('IPv6 text becomes its 16 bytes', () => {
  assert.deepEqual([...parseIPv6('::ffff:127.0.0.1')!], [...parseIPv6('::ffff:7f00:1')!]);
  assert.deepEqual(
    [...parseIPv6('2001:db8::8a2e:370:7334')!],
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0x8a, 0x2e, 0x03, 0x70, 0x73, 0x34],
  );
  assert.deepEqual([...parseIPv6('1:2:3:4:5:6:7::')!].slice(12), [0, 7, 0, 0], '`::` may stand for a single group');
  assert.equal(parseIPv6('1.2.3.4::'), null, 'an IPv4 tail only ends an address');
  assert.deepEqual([...parseIPv4('192.0.2.1')!], [192, 0, 2, 1]);
});
