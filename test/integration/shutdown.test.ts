import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway } from '../helpers/gateway.ts';

for (const kind of DATABASE_KINDS) {
  describe(`closing the gateway on ${kind}`, () => {
    test('handlers whose clients hung up finish before the database closes', async () => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
      const gw = await startTestGateway(kind, {}, pino({ level: 'error' }, sink));
      const merchant = await gw.newMerchant();
      const body = currentBody();
      assert.equal((await call(gw.url, '/payment', { key: merchant.test_secret_key, body })).status, 201);

      // Clients that send a request and hang up at once leave their handlers queued on the server.
      const { port } = new URL(gw.url);
      const request = `GET /verify-payment/${String(body.tx_ref)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${merchant.test_secret_key}\r\n\r\n`;
      const sockets = await Promise.all(
        Array.from(
          { length: 200 },
          () =>
            new Promise<net.Socket>((resolve) => {
              const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
              socket.on('error', () => undefined);
            }),
        ),
      );
      for (const socket of sockets) socket.write(request);
      await sleep(20);
      for (const socket of sockets) socket.destroy();
      await gw.close();
      assert.deepEqual(lines, [], 'no request failed because the database was closed under it');
    });
  });
}
