import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { ROOT } from '../helpers/cli.ts';
import { useTestGateway } from '../helpers/gateway.ts';
import { payAtCheckout } from '../helpers/payments.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/** Calls the document does not have: the type-check must refuse each line. */
const WRONG_CALLS = `import createClient from 'openapi-fetch';
import type { operations, paths } from './lipira-api.ts';
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
export const unknownPath = () => client.GET('/verify-payments/{tx_ref}', { params: { path: { tx_ref: 'x' } } });
export const wrongMethod = () => client.GET('/payment');
export type UnknownOperation = operations['createCheckoutSessions'];
export const missingField = () => client.POST('/payment', { body: { tx_ref: 'x', amount: 1000, currency: 'MWK' } });
`;

/**
 * Generates a client folder from the gateway's live document: the types (`lipira-api.ts`, by
 * openapi-typescript), the walk-through, and calls that must not compile; `node_modules` is the
 * checkout's, so that `openapi-fetch` and Node's types resolve there; its modules are ES modules.
 */
async function generateClient(documentUrl: URL, dir: string): Promise<void> {
  fs.writeFileSync(path.join(dir, 'lipira-api.ts'), astToString(await openapiTS(documentUrl)));
  fs.copyFileSync(path.join(ROOT, 'test/openapi-client/walk-through.ts'), path.join(dir, 'walk-through.ts'));
  fs.writeFileSync(path.join(dir, 'wrong-calls.ts'), WRONG_CALLS);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: path.join(ROOT, 'tsconfig.json'), include: ['*.ts'] }),
  );
}

/** The project's TypeScript over the folder: each error as `file(line,column): error TS…`. */
function typeCheck(dir: string): string[] {
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
    cwd: dir,
    encoding: 'utf8',
  });
  return tsc.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
}

describe('a client generated from the API reference', () => {
  const ctx = useTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '100ms', WORKER_INTERVAL: '50ms' });
  const folder = temporaryFolder('lipira-openapi-client-');
  after(() => folder.remove());

  test("type-checks, refuses calls the document lacks, and runs the README's walk-through against the gateway", async () => {
    await generateClient(new URL('/openapi.json', ctx.gw.url), folder.dir);

    const errors = typeCheck(folder.dir);
    assert.deepEqual(
      errors.filter((line) => !line.startsWith('wrong-calls.ts(')),
      [],
      'the generated types and the walk-through compile',
    );
    const refusedLines = new Set(errors.map((line) => /^wrong-calls\.ts\((\d+),/.exec(line)?.[1]));
    const wrongLines = WRONG_CALLS.split('\n').flatMap((line, i) => (line.startsWith('export') ? [String(i + 1)] : []));
    assert.deepEqual([...refusedLines].sort(), wrongLines.sort(), errors.join('\n'));

    // Typed where it was type-checked, beside the generated types; the project's own check skips it.
    const walk = await import(pathToFileURL(path.join(folder.dir, 'walk-through.ts')).href);
    const client = walk.lipiraClient(ctx.gw.url, ctx.merchant.test_secret_key);
    const landing = `${ctx.gw.url}/sandbox/landing`;

    // 2. A checkout session.
    const created = await walk.createSession(client, {
      tx_ref: 'order-1001',
      amount: 1000,
      currency: 'MWK',
      first_name: 'Jane',
      last_name: 'Banda',
      email: 'jane@example.com',
      callback_url: landing,
      return_url: landing,
      customization: { title: 'Order 1001', description: 'Two bags of maize' },
      meta: { order_id: 1001 },
    });
    assert.equal(created.data.event, 'checkout.session:created');
    assert.deepEqual(created.data.data, {
      tx_ref: 'order-1001',
      currency: 'MWK',
      amount: 1000,
      mode: 'test',
      status: 'pending',
    });

    // 3. Nobody has paid yet.
    const pending = await walk.verifyPayment(client, 'order-1001');
    assert.equal(pending.data.status, 'pending');
    assert.equal(pending.data.number_of_attempts, 0);
    assert.equal(pending.data.authorization, null);

    // 4. The customer pays on the hosted page with the README's Airtel Money number.
    const landedAt = await payAtCheckout(ctx.gw.url, created.data.checkout_url, '0990000000');
    assert.match(landedAt ?? '', /\/sandbox\/landing\?tx_ref=order-1001&transaction_id=[^&]+&status=success$/);

    // 5. Paid, in both generations.
    const paid = await walk.verifyPayment(client, 'order-1001');
    assert.equal(paid.data.status, 'success');
    assert.equal(paid.data.number_of_attempts, 1);
    assert.equal(paid.data.charges, 30);
    assert.equal(paid.data.authorization?.provider, 'Airtel Money');
    const legacy = await walk.verifyLegacyPayment(client, 'order-1001');
    assert.equal(legacy.data.amount, '1,000.00');
    assert.equal(legacy.data.type, 'API');
    assert.equal(legacy.data.status, 'success');
  });
});
