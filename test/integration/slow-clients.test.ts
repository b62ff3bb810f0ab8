import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { randomBase62 } from '../../src/shared/ids.ts';

/** A raw connection to the gateway: what it has received, and when the server closed it. */
interface RawClient {
  socket: net.Socket;
  received(): string;
  /** Milliseconds from connecting until the connection closed; rejects if it stays open past `limitMs`. */
  closedWithin(limitMs: number): Promise<number>;
}

/** `from` is the local address to connect from: loopback accepts any of 127.0.0.0/8, so tests can be several clients. */
function connect(url: string, from?: string): Promise<RawClient> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: hostname, localAddress: from });
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
          for (const deadline = started + limitMs; closedAt === null && performance.now() < deadline;) await sleep(20);
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
    if (performance.now() >= deadline)
      throw new Error(`no ${status} answer within ${limitMs} ms: ${JSON.stringify(text)}`);
    await sleep(10);
  }
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

/** A connection from `from` that has sent GET /healthz. */
async function probeFrom(url: string, from?: string): Promise<RawClient> {
  const client = await connect(url, from);
  client.socket.write(HEALTHZ);
  return client;
}

/** Whether the connection `open` makes is answered 200 within `limitMs`; it is closed after. */
async function served(open: () => Promise<RawClient>, limitMs = 2_000): Promise<boolean> {
  const client = await open();
  const ok = await answered(client, 200, limitMs).then(
    () => true,
    () => false,
  );
  client.socket.destroy();
  return ok;
}

/** The server notices a close asynchronously: new connections are tried until one is served. */
const servedAgain = (what: string, open: () => Promise<RawClient>) => eventually(what, () => served(open, 300), 3_000);

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
      assert.ok(
        client.received().endsWith('{"status":"failed","message":"The request took too long to arrive.","data":null}'),
        client.received(),
      );
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
    const open = await Promise.all([connect(gw.url), connect(gw.url), connect(gw.url)]);
    for (const client of open) client.socket.write(HEALTHZ);
    for (const client of open) await answered(client, 200);

    const refused = await connect(gw.url);
    refused.socket.write(HEALTHZ);
    await refused.closedWithin(2_000);
    assert.equal(refused.received(), '', 'nothing is answered over the cap');

    open[0]!.socket.destroy();
    await servedAgain('a connection served again once one has closed', () => probeFrom(gw.url));
    for (const client of open) client.socket.destroy();
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`connections over MAX_CONNECTIONS_PER_ADDRESS from the socket's address on ${kind}`, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind, { MAX_CONNECTIONS: '8', MAX_CONNECTIONS_PER_ADDRESS: '3' });
    });
    after(() => gw.close());

    test('one address holding idle sockets over its cap cannot starve another: its extra sockets are closed unanswered, the other is served', async () => {
      const flood = await Promise.all(Array.from({ length: 10 }, () => connect(gw.url, '127.0.0.1')));
      try {
        // Without the cap, the flood's first 8 sockets would take every place MAX_CONNECTIONS has.
        const closed = await Promise.all(
          flood.map((client) =>
            client.closedWithin(1_000).then(
              () => true,
              () => false,
            ),
          ),
        );
        assert.equal(closed.filter(Boolean).length, 7, 'all but the cap are closed');
        assert.ok(
          flood.filter((_client, index) => closed[index]).every((client) => client.received() === ''),
          'nothing is answered over the cap',
        );
        assert.ok(await served(() => probeFrom(gw.url, '127.0.0.2')), 'a probe from another address is served');
        const kept = flood.filter((_client, index) => !closed[index]);
        for (const client of kept) client.socket.write(HEALTHZ);
        for (const client of kept) await answered(client, 200);

        kept[0]!.socket.destroy();
        await servedAgain('a freed place taken again by the address', () => probeFrom(gw.url, '127.0.0.1'));
      } finally {
        for (const client of flood) client.socket.destroy();
      }
    });
  });

  describe(`connections over MAX_CONNECTIONS_PER_ADDRESS behind a trusted proxy on ${kind}`, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind, { MAX_CONNECTIONS_PER_ADDRESS: '3', CLIENT_ADDRESS_HEADER: 'x-forwarded-for' });
    });
    after(() => gw.close());

    const forwardedRequest = (client: string) =>
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.9.9.9, ${client}\r\n\r\n`;
    /** A connection from the proxy (every one comes from 127.0.0.1) that has sent a request of `client`'s. */
    async function forwarded(client: string): Promise<RawClient> {
      const connection = await connect(gw.url);
      connection.socket.write(forwardedRequest(client));
      return connection;
    }

    test("the proxy's sockets are not capped; a client's connection over the cap is answered 429 in the envelope and closed", async () => {
      const held = await Promise.all(['203.0.113.7', '203.0.113.7', '203.0.113.7'].map(forwarded));
      const others = await Promise.all(['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'].map(forwarded));
      try {
        for (const connection of [...held, ...others]) await answered(connection, 200);
        const over = await forwarded('203.0.113.7');
        await over.closedWithin(2_000);
        const text = await answered(over, 429, 0);
        assert.match(text, /\r\nconnection: close\r\n/i);
        assert.ok(
          text.endsWith('{"status":"failed","message":"Too many connections from your address.","data":null}'),
          text,
        );
        held[1]!.socket.write(forwardedRequest('203.0.113.7'));
        await eventually(
          'a second answer on a connection within the cap',
          async () => held[1]!.received().split('HTTP/1.1 200 ').length === 3,
        );

        held[0]!.socket.destroy();
        await servedAgain('a freed place taken again by the client', () => forwarded('203.0.113.7'));
      } finally {
        for (const connection of [...held, ...others]) connection.socket.destroy();
      }
    });

    test('an IPv6 client counts by its /64, and a connection counts for the client of its latest request', async () => {
      const held = await Promise.all(['2001:db8:5:6::1', '2001:db8:5:6::2', '2001:db8:5:6:ffff::3'].map(forwarded));
      try {
        for (const connection of held) await answered(connection, 200);
        assert.equal(
          await served(() => forwarded('2001:db8:5:6::9')),
          false,
          'a fourth address of the /64 is over its cap',
        );

        // A proxy reuses its connections for other clients: the first one now counts for another.
        held[0]!.socket.write(forwardedRequest('192.0.2.10'));
        await eventually(
          "the reused connection's answer",
          async () => held[0]!.received().split('HTTP/1.1 200 ').length === 3,
        );
        await servedAgain('the /64 served again', () => forwarded('2001:db8:5:6::9'));
      } finally {
        for (const connection of held) connection.socket.destroy();
      }
    });
  });

  describe(`a request refused before its body arrived on ${kind}`, () => {
    let gw: TestGateway;
    before(async () => {
      // Node's own timeouts would close such a connection only after REQUEST_TIMEOUT.
      gw = await startTestGateway(kind, { REQUEST_TIMEOUT: '30s' });
    });
    after(() => gw.close());

    const unknownKey = () => `sec-test-${randomBase62(32)}`;
    const heads: Array<[string, string]> = [
      [
        'an unknown key and a large Content-Length',
        `Authorization: Bearer ${unknownKey()}\r\nContent-Length: 60000\r\n`,
      ],
      [
        'an unknown key and a Content-Length over the body limit',
        `Authorization: Bearer ${unknownKey()}\r\nContent-Length: 10000000\r\n`,
      ],
      ['a malformed key', 'Authorization: Bearer nope\r\nContent-Length: 60000\r\n'],
      ['no key', 'Content-Length: 60000\r\n'],
      ['an unknown key and a chunked body', `Authorization: Bearer ${unknownKey()}\r\nTransfer-Encoding: chunked\r\n`],
    ];

    for (const [what, head] of heads) {
      test(`with ${what}: answered 401 in the envelope and closed at once`, async () => {
        const client = await connect(gw.url);
        client.socket.write(
          `POST /payment HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${head}\r\n${head.includes('chunked') ? '1\r\n{\r\n' : '{"tx_ref":'}`,
        );
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
      client.socket.write(HEALTHZ);
      for (
        const deadline = performance.now() + 2_000;
        !client.received().includes('HTTP/1.1 200 ') && performance.now() < deadline;
      )
        await sleep(10);
      assert.ok(client.received().includes('HTTP/1.1 200 '), client.received());
      client.socket.destroy();
    });
  });
}
