import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postWebhook, type SendOutcome } from '../../src/webhooks/http-sender.ts';
import { attemptRecord } from '../../src/webhooks/webhook-worker.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/** The webhook sender alone, against a real HTTP server on loopback (the only kind a test can run). */
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver((n) =>
    n % 2 === 1
      ? { status: 500, body: 'x'.repeat(3000) }
      : { status: 302, headers: { location: 'http://10.0.0.1/next' } },
  );
});
after(() => receiver.close());

const send = (url: string, allowLoopback: boolean) => postWebhook(url, '{}', {}, { timeoutMs: 2_000, allowLoopback });

test('loopback is refused before connecting unless allowed, by IP, by name and as IPv4-mapped IPv6', async () => {
  const port = new URL(receiver.url).port;
  for (const url of [
    receiver.url,
    `http://localhost:${port}/hooks`,
    `http://[::ffff:7f00:1]:${port}/hooks`,
    `http://[::ffff:127.0.0.1]:${port}/hooks`,
    `http://2130706433:${port}/hooks`,
  ]) {
    const outcome = await send(url, false);
    assert.match(outcome.error ?? '', /^Refused: /, url);
    assert.equal(outcome.statusCode, null);
    assert.equal(outcome.answeredFrom, null);
  }
  assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
});

test('when allowed, loopback is reached, and the outcome says the answer came from loopback', async () => {
  const port = new URL(receiver.url).port;
  const first = await send(`http://localhost:${port}/hooks`, true);
  assert.equal(first.statusCode, 500);
  assert.equal(first.answeredFrom, 'loopback');
  assert.equal(first.responseBody?.length, 1024, 'the first 1 KiB of the answer');
  const second = await send(receiver.url, true);
  assert.equal(second.statusCode, 302);
  assert.equal(second.error, 'Redirect not followed');
  assert.equal(second.location, 'http://10.0.0.1/next');
  assert.equal(receiver.received.length, 2);
});

test('other private addresses are refused even when loopback is allowed', async () => {
  for (const url of [
    'http://10.0.0.1/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[fd00::1]/',
  ]) {
    assert.match((await send(url, true)).error ?? '', /^Refused: .* is not a public address/, url);
  }
});

test('the delivery log keeps what a receiver said only when it answered from a public address', () => {
  const redirect: SendOutcome = {
    statusCode: 302,
    latencyMs: 12,
    responseBody: 'moved',
    location: 'http://10.0.0.1/next',
    error: 'Redirect not followed',
    retryAfterMs: null,
    answeredFrom: 'public',
  };
  assert.deepEqual(attemptRecord(redirect, 1_000), {
    attemptedAt: 1_000,
    statusCode: 302,
    latencyMs: 12,
    responseBody: 'moved',
    error: 'Redirect to http://10.0.0.1/next not followed',
  });
  assert.deepEqual(attemptRecord({ ...redirect, answeredFrom: 'loopback' }, 1_000), {
    attemptedAt: 1_000,
    statusCode: 302,
    latencyMs: 12,
    responseBody: null,
    error: 'Redirect not followed',
  });
  const refused: SendOutcome = {
    statusCode: null,
    latencyMs: 0,
    responseBody: null,
    location: null,
    error: 'Refused: 127.0.0.1 is not a public address',
    retryAfterMs: null,
    answeredFrom: null,
  };
  assert.deepEqual(attemptRecord(refused, 1_000), {
    attemptedAt: 1_000,
    statusCode: null,
    latencyMs: 0,
    responseBody: null,
    error: 'Refused: 127.0.0.1 is not a public address',
  });
});
