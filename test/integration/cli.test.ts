import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { BIN, lipira } from '../helpers/cli.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, freePort } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { payAtCheckout } from '../helpers/payments.ts';
import { curl, shellWords } from '../helpers/shell-commands.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';

const CREDENTIAL_KEYS = [
  'id',
  'name',
  'email',
  'test_secret_key',
  'live_secret_key',
  'test_public_key',
  'live_public_key',
  'webhook_secret',
];

/** A one-line complaint on stderr and a non-zero exit: what every bad command line must give. */
function assertRefused(result: { code: number | null; stderr: string; stdout: string }, pattern: RegExp): void {
  assert.notEqual(result.code, 0);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
}

for (const kind of DATABASE_KINDS) {
  describe(`the lipira command on ${kind}`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;

    before(() => {
      database = freshDatabase(kind);
      env = { DATABASE_URL: database.url };
    });
    after(() => database.drop());

    test('merchant create --json prints exactly the credentials', async () => {
      const result = await lipira(
        [
          'merchant',
          'create',
          '--name',
          'Mango Shop',
          '--email',
          'owner@mango.example',
          '--webhook-url',
          'https://mango.example/hooks',
          '--json',
        ],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      const created = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(created), CREDENTIAL_KEYS);
      assert.equal(created.name, 'Mango Shop');
      assert.equal(created.email, 'owner@mango.example');
      assert.match(created.test_secret_key, /^sec-test-[0-9A-Za-z]{32}$/);
      assert.match(created.live_secret_key, /^sec-live-[0-9A-Za-z]{32}$/);
      assert.match(created.test_public_key, /^pub-test-[0-9A-Za-z]{32}$/);
      assert.match(created.live_public_key, /^pub-live-[0-9A-Za-z]{32}$/);
      assert.ok(created.webhook_secret.length >= 32);
    });

    test('merchant list and update', async () => {
      const created = JSON.parse(
        (await lipira(['merchant', 'create', '--name', 'Listed', '--email', 'l@example.com', '--json'], env)).stdout,
      );
      const updated = await lipira(
        [
          'merchant',
          'update',
          created.id,
          '--fee-percent',
          '2.5',
          '--receipts',
          'off',
          '--webhook-url',
          'https://listed.example/wh',
        ],
        env,
      );
      assert.equal(updated.code, 0, updated.stderr);
      const listed = await lipira(['merchant', 'list', '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const row = JSON.parse(listed.stdout).find((m: { id: string }) => m.id === created.id);
      assert.equal(row.fee_percent, 2.5);
      assert.equal(row.receipts, false);
      assert.equal(row.webhook_url, 'https://listed.example/wh');
      assert.equal(row.test_public_key, created.test_public_key);
      assert.ok(!listed.stdout.includes(created.test_secret_key), 'secrets are never listed');
      const plain = await lipira(['merchant', 'list'], env);
      assert.match(plain.stdout, new RegExp(created.id));
    });

    test('bad arguments exit non-zero with one line', async () => {
      assertRefused(await lipira(['merchant', 'create', '--name', 'No Email'], env), /--email is required/);
      assertRefused(await lipira(['merchant', 'create', '--name', 'X', '--email', 'not-an-email'], env), /--email/);
      assertRefused(
        await lipira(
          ['merchant', 'create', '--name', 'X', '--email', 'x@example.com', '--webhook-url', 'ftp://x'],
          env,
        ),
        /--webhook-url/,
      );
      assertRefused(
        await lipira(['merchant', 'create', '--name', 'X', '--email', 'x@example.com', '--colour', 'red'], env),
        /unknown option --colour/,
      );
      assertRefused(
        await lipira(['merchant', 'update', 'mer_x', '--receipts', 'maybe'], env),
        /--receipts must be on or off/,
      );
      assertRefused(await lipira(['merchant', 'update', 'mer_x', '--fee-percent', '101'], env), /--fee-percent/);
      assertRefused(await lipira(['merchant', 'update', 'mer_missing', '--fee-percent', '1'], env), /no merchant/);
      assertRefused(await lipira(['keys', 'roll', 'mer_x', '--mode', 'staging'], env), /--mode must be test or live/);
      assertRefused(
        await lipira(['keys', 'roll', 'mer_x', '--mode', 'test', '--expire-old-in', 'soon'], env),
        /--expire-old-in/,
      );
      assertRefused(await lipira(['frobnicate'], env), /unknown command/);
      assertRefused(await lipira(['merchant', 'list'], { DATABASE_URL: 'mysql://nope' }), /DATABASE_URL/);
    });

    describe('keys roll against a running gateway on the same database', () => {
      let gateway: Gateway;

      before(async () => {
        const config = loadConfig({ ...env, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'silent' });
        gateway = await startGateway(config, await openMigratedDatabase(config.databaseUrl), false);
      });
      after(() => gateway.close());

      test('the new key works at once; the old one until --expire-old-in, then 401', async () => {
        const created = JSON.parse(
          (await lipira(['merchant', 'create', '--name', 'Roll', '--email', 'r@example.com', '--json'], env)).stdout,
        );
        const rolled = await lipira(
          ['keys', 'roll', created.id, '--mode', 'test', '--expire-old-in', '2s', '--json'],
          env,
        );
        assert.equal(rolled.code, 0, rolled.stderr);
        const view = JSON.parse(rolled.stdout);
        assert.match(view.secret_key, /^sec-test-[0-9A-Za-z]{32}$/);
        assert.equal((await call(gateway.url, '/payment', { key: view.secret_key, body: currentBody() })).status, 201);
        assert.equal(
          (await call(gateway.url, '/payment', { key: created.test_secret_key, body: currentBody() })).status,
          201,
        );
        await sleep(Math.max(0, Date.parse(view.old_keys_expire_at) - Date.now()) + 100);
        assert.equal(
          (await call(gateway.url, '/payment', { key: created.test_secret_key, body: currentBody() })).status,
          401,
        );
        assert.equal((await call(gateway.url, '/payment', { key: view.secret_key, body: currentBody() })).status, 201);
      });
    });
  });
}

describe('lipira serve', () => {
  /** A temporary working directory, removed after the test, and every server started in it stopped first, pass or fail. */
  function useServeDirectory(t: TestContext) {
    const cleanup = useCleanup(t);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-serve-'));
    cleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
    return {
      dir,
      async serve(env: Record<string, string>) {
        const server = await serveUntilListening(env, dir);
        cleanup(() => server.stop());
        return server;
      },
    };
  }

  test('the first start creates a demo merchant and prints its key and a working curl, once', async (t) => {
    const { dir, serve } = useServeDirectory(t);
    const port = await freePort();
    const env = { PORT: String(port), DATABASE_URL: 'sqlite:./state/gateway.db' };
    const first = await serve(env);
    const key = /sec-test-[0-9A-Za-z]{32}/.exec(first.stdout)?.[0];
    assert.ok(key, first.stdout);
    assert.match(first.stdout, /curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/payment/);
    assert.ok(
      fs.existsSync(path.join(dir, 'state/gateway.db')),
      'a relative sqlite: path resolves against the working directory',
    );
    const body = JSON.parse(/-d '(.+)'/.exec(first.stdout)![1]!);
    const created = await call(`http://127.0.0.1:${port}`, '/payment', { key, body });
    assert.equal(created.status, 201);
    const demoId = /demo merchant \((mer_\w+)\)/.exec(first.stdout)![1]!;
    assert.ok(
      first.stdout.includes(
        `npx lipira merchant update ${demoId} --webhook-url http://127.0.0.1:${port}/sandbox/webhook`,
      ),
      'without WEBHOOK_ALLOW_LOOPBACK it says how to see webhooks',
    );
    assert.equal(await first.stop(), 0, 'SIGTERM stops it cleanly');

    const second = await serve(env);
    assert.ok(!/sec-test-/.test(second.stdout), 'the key is printed only on the first start');
    assert.equal(
      (await call(`http://127.0.0.1:${port}`, `/verify-payment/${String(body.tx_ref)}`, { key })).status,
      200,
    );
    assert.equal(await second.stop(), 0);
  });

  test("the first start's banner, followed command by command, ends in a verified payment, a delivered webhook, receipts and the dashboard's first user", async (t) => {
    const { dir, serve } = useServeDirectory(t);
    const base = `http://127.0.0.1:${await freePort()}`;
    const banner = (
      await serve({
        PORT: new URL(base).port,
        WEBHOOK_ALLOW_LOOPBACK: 'on',
        SANDBOX_MOBILE_DELAY: '100ms',
        WORKER_INTERVAL: '50ms',
      })
    ).stdout;
    assert.ok(banner.includes(`The API reference: ${base}/docs\n`), banner);
    assert.equal((await fetch(`${base}/docs`)).status, 200);
    const [create, verify, listWebhooks, createUser, ...rest] = bannerCommands(banner);
    assert.deepEqual(rest, [], banner);

    const created = await curl(create!);
    assert.equal(created.status, 201, created.body);
    assert.ok(banner.includes('pay by mobile money with 0990000000'));
    const landedAt = new URL((await payAtCheckout(base, JSON.parse(created.body).data.checkout_url, '0990000000'))!);
    assert.equal(`${landedAt.origin}${landedAt.pathname}`, `${base}/sandbox/landing`);
    assert.equal(landedAt.searchParams.get('status'), 'success');
    assert.match(await (await fetch(landedAt)).text(), /<th scope="row">tx_ref<\/th><td><code>demo-0001<\/code>/);

    const verified = await curl(verify!);
    assert.equal(verified.status, 200, verified.body);
    assert.equal(JSON.parse(verified.body).data.status, 'success');

    assert.deepEqual(listWebhooks!.slice(0, 4), ['npx', 'lipira', 'webhooks', 'list']);
    await eventually('a delivered webhook', async () =>
      / checkout\.payment {2}delivered {2}tries 1 {2}demo-0001$/m.test(
        (await lipira(listWebhooks!.slice(2), {}, dir)).stdout,
      ),
    );
    const outbox = /Its receipts are written to (.+)\.\n/.exec(banner)![1]!;
    assert.equal(outbox, path.join(fs.realpathSync(dir), 'data', 'outbox'));
    await eventually('the receipts', async () => fs.existsSync(outbox) && fs.readdirSync(outbox).length === 2);

    assert.ok(banner.includes(`The dashboard, ${base}/dashboard, shows`), banner);
    assert.deepEqual(createUser!.slice(0, 5), ['npx', 'lipira', 'users', 'create', '--operator']);
    // In the gateway's environment, as its operator would run it: the link names PUBLIC_BASE_URL.
    const user = await lipira(createUser!.slice(2), { PORT: new URL(base).port }, dir);
    assert.equal(user.code, 0, user.stderr);
    const link = /Set-password link[^\n]*\n +(\S+)/.exec(user.stdout)?.[1];
    assert.ok(link?.startsWith(`${base}/dashboard/`), user.stdout);
    assert.equal((await fetch(link!)).status, 200, 'the link opens the page that sets the first password');
  });

  test('bad configuration refuses to start, naming the variable', async () => {
    const result = await lipira(['serve'], { PORT: 'eighty' });
    assertRefused(result, /PORT/);
  });
});

/** The commands the banner shows, indented, each with its continuation lines, as a shell reads them. */
function bannerCommands(banner: string): string[][] {
  const lines = banner.split('\n');
  const commands: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^ +(curl|npx) /.test(lines[i]!)) continue;
    let command = lines[i]!;
    while (command.endsWith('\\')) command += `\n${lines[++i]!}`;
    commands.push(shellWords(command, {}));
  }
  return commands;
}

async function serveUntilListening(env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Its first start bundles the sources and migrates a new database: on a loaded machine that
  // has taken over 15 s.
  const deadline = Date.now() + 45_000;
  while (!stdout.includes('Lipira is listening')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${stdout}`);
    await sleep(50);
  }
  return {
    get stdout() {
      return stdout;
    },
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
