import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';

/** fetch refuses a body on GET, and some SDKs send one: speak HTTP directly. */
function getWithBody(url: string, key: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`HTTP behaviour on ${kind}`, () => {
    const ctx = useTestGateway(kind);

    test('healthz says the process is up; readyz checks the database, migrations and workers', async () => {
      const res = await call(ctx.gw.url, '/healthz');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'success', message: 'OK', data: { process: 'up' } });
      const ready = await call(ctx.gw.url, '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body.data, {
        database: 'up',
        migrations: 'current',
        workers: 'running',
        backups: 'off',
        warnings: [],
      });
    });

    test('every response carries X-Request-Id, errors included', async () => {
      for (const path of ['/healthz', '/nowhere', '/verify-payment/x']) {
        const res = await call(ctx.gw.url, path);
        assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, path);
      }
    });

    test('an unknown route is a 404 in the envelope', async () => {
      const res = await call(ctx.gw.url, '/no/such/route', { key: ctx.merchant.test_secret_key });
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(res.body, { status: 'failed', message: 'Route not found.', data: null });
    });

    test('a wrong method on a known route is a 405 in the envelope', async () => {
      for (const [method, path] of [
        ['GET', '/payment'],
        ['DELETE', '/payment'],
        ['POST', '/verify-payment/x'],
        ['PUT', '/api/payment'],
      ]) {
        const res = await call(ctx.gw.url, path!, {
          method,
          key: ctx.merchant.test_secret_key,
          rawBody: method === 'GET' ? undefined : '[]',
        });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.deepEqual(res.body, { status: 'failed', message: 'Method not allowed.', data: null });
      }
    });

    test('an absurdly long path parameter is a 404 in the envelope', async () => {
      const res = await call(ctx.gw.url, `/verify-payment/${'x'.repeat(5000)}`, { key: ctx.merchant.test_secret_key });
      assert.equal(res.status, 404);
      assert.equal(res.body.status, 'failed');
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    test('a body over the limit is a 413 in the envelope', async () => {
      const res = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        body: currentBody({ meta: { blob: 'x'.repeat(70 * 1024) } }),
      });
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { status: 'failed', message: 'Request body too large.', data: null });
    });

    test('headers over 16 KiB are a 431 in the envelope that says it closes the connection, so a keep-alive client carries on', async () => {
      // One keep-alive connection: each request waits for the one before, on the same socket unless told it closes.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const send = (method: string, path: string) =>
        new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
          const request = http.request(`${ctx.gw.url}${path}`, { method, agent }, (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
            );
          });
          request.on('error', reject);
          request.end();
        });
      try {
        const huge = `/healthz?pad=${'x'.repeat(20_000)}`;
        const [get, head, after] = await Promise.all([send('GET', huge), send('HEAD', huge), send('GET', '/healthz')]);
        assert.equal(get.status, 431);
        assert.deepEqual(JSON.parse(get.body), { status: 'failed', message: 'Request headers too large.', data: null });
        assert.equal(get.headers.connection, 'close');
        assert.match(String(get.headers['x-request-id']), /^[0-9a-f-]{36}$/);
        assert.equal(head.status, 431);
        assert.equal(head.body, '', 'an answer to HEAD has no body');
        assert.equal(after.status, 200, 'the next request on the same client is answered');
      } finally {
        agent.destroy();
      }
    });

    test('an unreadable HEAD that arrives in one packet behind another request is answered without a body', async () => {
      // Pipelined: the refused request does not start the packet the parser was reading.
      const socket = net.connect(Number(new URL(ctx.gw.url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write(
        Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nHEAD /healthz/\xff HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
      );
      await closed;
      const text = Buffer.concat(chunks).toString('latin1');
      const refused = text.slice(text.indexOf('HTTP/1.1 400'));
      assert.match(refused, /^HTTP\/1\.1 400 [^\r]*\r\n/);
      assert.match(refused, /\r\nconnection: close\r\n/i);
      assert.ok(refused.endsWith('\r\n\r\n'), `no body after the headers: ${JSON.stringify(refused)}`);
    });

    test('headers over 16 KiB sent in pieces are a 431 without a body when the request line came in an earlier packet', async () => {
      // The parser gives up on a later packet than the one that held the method, so the method
      // cannot be read back: a HEAD client must not get body bytes it would read as garbage.
      const answer = async (method: string) => {
        const socket = net.connect(Number(new URL(ctx.gw.url).port), '127.0.0.1');
        socket.setNoDelay(true);
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        const closed = new Promise((resolve) => socket.on('close', resolve));
        socket.write(`${method} /readyz?x=`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        socket.write(`${'y'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
        await closed;
        return Buffer.concat(chunks).toString('latin1');
      };
      for (const method of ['HEAD', 'GET']) {
        const text = await answer(method);
        assert.match(text, /^HTTP\/1\.1 431 [^\r]*\r\n/, method);
        assert.match(text, /\r\nconnection: close\r\n/i, method);
        assert.match(text, /\r\ncontent-length: 0\r\n/i, method);
        assert.match(text, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i, method);
        assert.ok(
          text.endsWith('\r\n\r\n'),
          `${method}: no body after the headers: ${JSON.stringify(text.slice(-80))}`,
        );
      }
    });

    test('a body that is not a JSON object is a 400', async () => {
      for (const rawBody of ['not json', '[1,2]', '"text"', '42', 'null', '{"a":']) {
        const res = await call(ctx.gw.url, '/payment', {
          key: ctx.merchant.test_secret_key,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 400, rawBody);
        assert.deepEqual(res.body, {
          status: 'failed',
          message: 'The request body must be a JSON object.',
          data: null,
        });
      }
    });

    test('an empty JSON body is an empty object, not a parse error', async () => {
      const res = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      assert.equal(typeof res.body.message, 'object');
      assert.deepEqual(res.body.message.tx_ref, ['The tx ref field is required.']);
    });

    test('JSON sent as text/plain or without a content type is still read', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await call(ctx.gw.url, '/payment', {
          key: ctx.merchant.test_secret_key,
          rawBody: JSON.stringify(currentBody()),
          headers: { 'content-type': contentType },
        });
        assert.equal(res.status, 201, contentType);
      }
    });

    test('a GET carrying a body has it ignored', async () => {
      const body = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      for (const raw of ['[]', '{"x":1}', 'not json']) {
        const res = await getWithBody(
          `${ctx.gw.url}/verify-payment/${String(body.tx_ref)}`,
          ctx.merchant.test_secret_key,
          raw,
        );
        assert.equal(res.status, 200, raw);
        assert.equal(JSON.parse(res.body).data.tx_ref, body.tx_ref);
      }
    });

    test('a trailing or doubled slash reaches the same route', async () => {
      assert.equal(
        (await call(ctx.gw.url, '/payment/', { key: ctx.merchant.test_secret_key, body: currentBody() })).status,
        201,
      );
      assert.equal(
        (await call(ctx.gw.url, '//payment', { key: ctx.merchant.test_secret_key, body: currentBody() })).status,
        201,
      );
    });

    test('the checkout link answers a page, and an unknown one a 404 page', async () => {
      const created = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        body: currentBody({ customization: { title: '<script>alert(1)</script>' } }),
      });
      const page = await fetch(created.body.data.checkout_url);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const html = await page.text();
      assert.ok(!html.includes('<script>alert(1)</script>'));
      assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
      const missing = await fetch(`${ctx.gw.url}/checkout/doesnotexist`);
      assert.equal(missing.status, 404);
      assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
    });
  });
}
