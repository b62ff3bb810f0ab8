import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { randomBase62 } from '../../src/shared/ids.ts';

/** A raw connection to the gateway: what it has received, and when the server closed it. */
interface RawClient {
  socket: net.Socket;
  received(): string;
  /** Milliseconds from connecting until the connection closed; rejects if it stays open past `limitMs`. */
  closedWithin(limitMs: number): Promise<number>;
}

function connect(url: string): Promise<RawClient> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const started = performance.now();
    let text = '';
    let closedAt: number | null = null;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    // A reset after the answer (the server closed with our bytes unread) is a close too.
    socket.on('error', () => {});
    socket.on('close', () => (closedAt = performance.now()));
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => text,
        async closedWithin(limitMs) {
          for (const deadline = started + limitMs; closedAt === null && performance.now() < deadline; ) await sleep(20);
          if (closedAt === null) throw new Error(`still open after ${limitMs} ms; received: ${JSON.stringify(text)}`);
          return closedAt - started;
        },
      }),
    );
  });
}

/** Waits until `client` has received a whole answer whose head matches `status`. */
async function answered(client: RawClient, status: number, limitMs = 2_000): Promise<string> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const text = client.received();
    if (text.startsWith(`HTTP/1.1 ${status} `) && text.includes('\r\n\r\n')) return text;
    if (performance.now() >= deadline) throw new Error(`no ${status} answer within ${limitMs} ms: ${JSON.stringify(text)}`);
    await sleep(10);
  }
}

describe('clients that send their headers slowly', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('sqlite', { HEADERS_TIMEOUT: '1s', REQUEST_TIMEOUT: '10s' });
  });
  after(() => gw.close());

  test('a client dribbling its headers is answered 408 and cut off about HEADERS_TIMEOUT after it connected, not up to 30 s later', async () => {
    const client = await connect(gw.url);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const dribble = setInterval(() => client.socket.writable && client.socket.write('X-Slow: 1\r\n'), 150);
    try {
      const openFor = await client.closedWithin(5_000);
      assert.ok(openFor >= 900 && openFor < 2_000, `closed after ${Math.round(openFor)} ms`);
      assert.match(client.received(), /^HTTP\/1\.1 408 /);
      assert.ok(client.received().endsWith('{"status":"failed","message":"The request took too long to arrive.","data":null}'), client.received());
    } finally {
      clearInterval(dribble);
      client.socket.destroy();
    }
  });
});

describe('connections over MAX_CONNECTIONS', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('sqlite', { MAX_CONNECTIONS: '3' });
  });
  after(() => gw.close());

  test('are closed as they arrive, while those within the cap are served; a freed place is taken again', async () => {
    const healthz = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    const open = await Promise.all([connect(gw.url), connect(gw.url), connect(gw.url)]);
    for (const client of open) client.socket.write(healthz);
    for (const client of open) await answered(client, 200);

    const refused = await connect(gw.url);
    refused.socket.write(healthz);
    await refused.closedWithin(2_000);
    assert.equal(refused.received(), '', 'nothing is answered over the cap');

    open[0]!.socket.destroy();
    // The server notices the close asynchronously: a new connection is served once it has.
    let served = false;
    for (const deadline = performance.now() + 2_000; !served && performance.now() < deadline; ) {
      const next = await connect(gw.url);
      next.socket.write(healthz);
      served = await answered(next, 200, 300).then(() => true, () => false);
      next.socket.destroy();
    }
    assert.ok(served, 'a connection is served again once one has closed');
    for (const client of open) client.socket.destroy();
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`a request refused before its body arrived on ${kind}`, () => {
    let gw: TestGateway;
    before(async () => {
      // Node's own timeouts would close such a connection only after REQUEST_TIMEOUT.
      gw = await startTestGateway(kind, { REQUEST_TIMEOUT: '30s' });
    });
    after(() => gw.close());

    const unknownKey = () => `sec-test-${randomBase62(32)}`;
    const heads: Array<[string, string]> = [
      ['an unknown key and a large Content-Length', `Authorization: Bearer ${unknownKey()}\r\nContent-Length: 60000\r\n`],
      ['an unknown key and a Content-Length over the body limit', `Authorization: Bearer ${unknownKey()}\r\nContent-Length: 10000000\r\n`],
      ['a malformed key', 'Authorization: Bearer nope\r\nContent-Length: 60000\r\n'],
      ['no key', 'Content-Length: 60000\r\n'],
      ['an unknown key and a chunked body', `Authorization: Bearer ${unknownKey()}\r\nTransfer-Encoding: chunked\r\n`],
    ];

    for (const [what, head] of heads) {
      test(`with ${what}: answered 401 in the envelope and closed at once`, async () => {
        const client = await connect(gw.url);
        client.socket.write(`POST /payment HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${head}\r\n${head.includes('chunked') ? '1\r\n{\r\n' : '{"tx_ref":'}`);
        const openFor = await client.closedWithin(3_000);
        const text = await answered(client, 401, 0);
        assert.match(text, /\r\nconnection: close\r\n/i);
        assert.ok(text.endsWith('{"status":"failed","message":"Unauthenticated.","data":null}'), text);
        assert.ok(openFor < 3_000, `closed after ${Math.round(openFor)} ms`);
        client.socket.destroy();
      });
    }

    test('a 401 to a request without a body keeps the connection for the next request', async () => {
      const client = await connect(gw.url);
      client.socket.write(`GET /verify-payment/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${unknownKey()}\r\n\r\n`);
      const first = await answered(client, 401);
      assert.doesNotMatch(first, /\r\nconnection: close\r\n/i);
      client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      for (const deadline = performance.now() + 2_000; !client.received().includes('HTTP/1.1 200 ') && performance.now() < deadline; ) await sleep(10);
      assert.ok(client.received().includes('HTTP/1.1 200 '), client.received());
      client.socket.destroy();
    });
  });
}
