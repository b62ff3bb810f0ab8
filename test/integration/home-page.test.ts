import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { updateMerchant } from '../../src/merchants/merchant-repository.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';

/** The links of a page, by their text. */
function links(html: string): Map<string, string> {
  return new Map([...html.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((link) => [link[2]!, link[1]!]));
}

for (const kind of DATABASE_KINDS) {
  describe(`GET / of a fresh install on ${kind}`, () => {
    let database: TestDatabase;
    let serve: ServeProcess;
    before(async () => {
      database = freshDatabase(kind);
      serve = await startServe({ DATABASE_URL: database.url });
    });
    after(async () => {
      await serve.stop();
      await database.drop();
    });

    test("is a page with the way to the dashboard and the API reference, and the demo's next steps without its key", async () => {
      const page = await call(serve.url, '/');
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
      assert.deepEqual(Object.fromEntries(links(page.text)), {
        Dashboard: `${serve.url}/dashboard`,
        'API reference': `${serve.url}/docs`,
      });

      const demoId = /demo merchant \((mer_\w+)\)/.exec(serve.output)?.[1];
      assert.ok(demoId, serve.output);
      const key = /sec-test-\w+/.exec(serve.output)![0];
      assert.ok(page.text.includes('<h2>Next steps</h2>'), page.text);
      assert.ok(page.text.includes(`Demo Store (<code>${demoId}</code>)`));
      assert.ok(page.text.includes(`npx lipira keys roll ${demoId} --mode test`));
      assert.ok(page.text.includes(`curl -s -X POST ${serve.url}/payment`));
      assert.ok(page.text.includes('npx lipira users create --operator --email you@example.com'));
      assert.ok(!page.text.includes(key) && !/sec-(test|live)-/.test(page.text), 'no secret key on a public page');
    });

    test("escapes the merchant's name, which its owner may change", async () => {
      const opened = await openDatabase(database.url);
      try {
        const demoId = /demo merchant \((mer_\w+)\)/.exec(serve.output)![1]!;
        await updateMerchant(opened.db, demoId, { name: '<img src=x onerror=alert(1)>' });
      } finally {
        await opened.close();
      }
      const page = await call(serve.url, '/');
      assert.ok(page.text.includes('&lt;img src=x onerror=alert(1)&gt;'), page.text);
      assert.ok(!page.text.includes('<img'));
    });

    test("once a second merchant exists, the demo's steps are gone and the links stay", async () => {
      const created = await lipira(['merchant', 'create', '--name', 'Mango Shop', '--email', 'owner@mango.example'], {
        DATABASE_URL: database.url,
      });
      assert.equal(created.code, 0, created.stderr);
      const page = await call(serve.url, '/');
      assert.equal(page.status, 200);
      assert.ok(!page.text.includes('Next steps'), page.text);
      assert.deepEqual([...links(page.text).keys()], ['Dashboard', 'API reference']);
    });
  });

  describe(`GET / of a gateway whose merchants were made without a demo on ${kind}`, () => {
    const ctx = useTestGateway(kind);

    test('shows the links only; other methods on / are 405 in the envelope', async () => {
      const page = await call(ctx.gw.url, '/');
      assert.equal(page.status, 200);
      assert.deepEqual([...links(page.text).keys()], ['Dashboard', 'API reference']);
      assert.ok(!page.text.includes('Next steps'));
      const posted = await call(ctx.gw.url, '/', { method: 'POST', rawBody: '{}' });
      assert.equal(posted.status, 405);
      assert.deepEqual(posted.body, { status: 'failed', message: 'Method not allowed.', data: null });
    });
  });
}
