import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lipira } from '../helpers/cli.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { startServe } from '../helpers/serve-process.ts';

/** Connection URLs whose secrets sit in the query, as drivers accept them. */
const ENV = {
  DATABASE_URL:
    'postgres://lipira@db.internal:5432/lipira?sslmode=require&password=pg-query-secret&sslpassword=pg-ssl-secret',
  REDIS_URL: 'redis://cache.internal:6379?password=redis-query-secret&db=2',
  SMTP_URL:
    'smtp://mailer:smtp-user-secret@smtp.internal:587?pass=smtp-query-secret&auth_token=smtp-token-secret&pool=true',
};
const SECRETS = [
  'pg-query-secret',
  'pg-ssl-secret',
  'redis-query-secret',
  'smtp-user-secret',
  'smtp-query-secret',
  'smtp-token-secret',
];

describe('lipira config with live connector credentials', () => {
  const credentials = {
    LIVE_ROUTES: 'airtel:airtel,payout:airtel,tnm:paychangu',
    AIRTEL_CLIENT_ID: 'airtel-client-id',
    AIRTEL_CLIENT_SECRET: 'airtel-client-secret-value',
    AIRTEL_DISBURSEMENT_PIN: '9876',
    AIRTEL_PUBLIC_KEY:
      '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
    AIRTEL_CALLBACK_SECRET: 'airtel-callback-secret-value',
    PAYCHANGU_UPSTREAM_SECRET_KEY: 'sec-live-upstream-secret-value',
    PAYCHANGU_UPSTREAM_WEBHOOK_SECRET: 'upstream-webhook-secret-value',
  };

  test('shows the routes and the client id, masks every secret and the PIN', async () => {
    const result = await lipira(['config', '--json'], credentials);
    assert.equal(result.code, 0, result.stderr);
    for (const secret of [
      'airtel-client-secret-value',
      '9876',
      'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA',
      'airtel-callback-secret-value',
      'sec-live-upstream-secret-value',
      'upstream-webhook-secret-value',
    ]) {
      assert.ok(!result.stdout.includes(secret), `${secret} is printed`);
    }
    const config = JSON.parse(result.stdout);
    assert.equal(config.LIVE_ROUTES, 'airtel:airtel,payout:airtel,tnm:paychangu');
    assert.equal(config.AIRTEL_CLIENT_ID, 'airtel-client-id');
    assert.equal(config.AIRTEL_CLIENT_SECRET, '****');
    assert.equal(config.AIRTEL_DISBURSEMENT_PIN, '****');
    assert.equal(config.PAYCHANGU_UPSTREAM_SECRET_KEY, '****');
  });
});

describe('lipira config with secrets in URL queries', () => {
  test('--json masks every secret-looking query parameter and the password, keeping the rest', async () => {
    const result = await lipira(['config', '--json'], ENV);
    assert.equal(result.code, 0, result.stderr);
    for (const secret of SECRETS) assert.ok(!result.stdout.includes(secret), `${secret} is printed: ${result.stdout}`);
    const config = JSON.parse(result.stdout);
    assert.equal(
      config.DATABASE_URL,
      'postgres://lipira@db.internal:5432/lipira?sslmode=require&password=****&sslpassword=****',
    );
    assert.equal(config.REDIS_URL, 'redis://cache.internal:6379?password=****&db=2');
    assert.equal(config.SMTP_URL, 'smtp://mailer:****@smtp.internal:587?pass=****&auth_token=****&pool=true');
  });

  test('the plain listing masks them too', async () => {
    const result = await lipira(['config'], ENV);
    assert.equal(result.code, 0, result.stderr);
    for (const secret of SECRETS) assert.ok(!result.stdout.includes(secret), `${secret} is printed: ${result.stdout}`);
    assert.match(result.stdout, /^REDIS_URL +redis:\/\/cache\.internal:6379\?password=\*\*\*\*&db=2$/m);
  });
});

describe("lipira config with secrets in the connectors' API URLs", () => {
  const API_ENV = {
    AIRTEL_API_URL:
      'https://openapiuat.airtel.africa?api_key=airtel-key-secret&X-Amz-Signature=airtel-signature-secret&region=mw',
    PAYCHANGU_UPSTREAM_URL:
      'https://upstream.example/v1?access_token=upstream-token-secret&sig=upstream-sig-secret&ClientSecret=upstream-client-secret&mode=live',
  };
  const API_SECRETS = [
    'airtel-key-secret',
    'airtel-signature-secret',
    'upstream-token-secret',
    'upstream-sig-secret',
    'upstream-client-secret',
  ];

  test('--json and the listing mask secret-looking query values, keeping the rest', async () => {
    const json = await lipira(['config', '--json'], API_ENV);
    assert.equal(json.code, 0, json.stderr);
    const config = JSON.parse(json.stdout);
    assert.equal(
      config.AIRTEL_API_URL,
      'https://openapiuat.airtel.africa/?api_key=****&X-Amz-Signature=****&region=mw',
    );
    assert.equal(
      config.PAYCHANGU_UPSTREAM_URL,
      'https://upstream.example/v1?access_token=****&sig=****&ClientSecret=****&mode=live',
    );
    const listing = await lipira(['config'], API_ENV);
    assert.equal(listing.code, 0, listing.stderr);
    for (const secret of API_SECRETS)
      assert.ok(!`${json.stdout}${listing.stdout}`.includes(secret), `${secret} is printed`);
  });

  test('a user and password in an API URL are refused without being repeated: fetch cannot send them', async () => {
    for (const variable of ['AIRTEL_API_URL', 'PAYCHANGU_UPSTREAM_URL']) {
      const result = await lipira(['config'], { [variable]: 'https://operator-login:api-password-secret@api.example' });
      assert.equal(result.code, 2, result.stdout);
      assert.match(
        result.stderr,
        new RegExp(`^lipira: Invalid configuration: ${variable} must not carry a user name or password`),
      );
      assert.ok(!/api-password-secret|operator-login/.test(result.stdout + result.stderr), result.stderr);
    }
  });

  test('a refused database URL is not repeated with its password', async () => {
    const result = await lipira(['config'], {
      DATABASE_URL: 'mysql://root:mysql-password-secret@db.internal/shop?password=mysql-query-secret',
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /DATABASE_URL must start with "sqlite:" or "postgres:\/\/"/);
    assert.ok(!/mysql-password-secret|mysql-query-secret/.test(result.stderr), result.stderr);
  });
});

for (const kind of DATABASE_KINDS.filter((name) => name === 'postgres')) {
  describe('the database URL in what lipira migrate and serve print', () => {
    /** The test database's URL with a password in its user part and another in its query: trust authentication ignores both. */
    function withPasswords(url: string): string {
      const secret = new URL(url);
      secret.password = 'pg-userinfo-secret';
      secret.searchParams.set('password', 'pg-query-secret');
      return secret.toString();
    }

    test(`migrate and the serving log's start line show neither password (${kind})`, async (t) => {
      const cleanup = useCleanup(t);
      const database = freshDatabase(kind);
      cleanup(() => database.drop());
      const env = { DATABASE_URL: withPasswords(database.url) };
      const migrated = await lipira(['migrate'], env);
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.match(
        migrated.stdout,
        /^Migrations are up to date on postgres:\/\/postgres:\*\*\*\*@.+\?password=\*\*\*\*$/m,
      );
      const server = await startServe({ ...env, LOG_LEVEL: 'info' });
      cleanup(() => server.stop());
      await eventually('the start line', async () => server.output.includes('Lipira is listening'));
      assert.ok(!/pg-userinfo-secret|pg-query-secret/.test(migrated.stdout + server.output), server.output);
    });
  });
}
