import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lipira } from '../helpers/cli.ts';

/** Connection URLs whose secrets sit in the query, as drivers accept them. */
const ENV = {
  DATABASE_URL: 'postgres://lipira@db.internal:5432/lipira?sslmode=require&password=pg-query-secret&sslpassword=pg-ssl-secret',
  REDIS_URL: 'redis://cache.internal:6379?password=redis-query-secret&db=2',
  SMTP_URL: 'smtp://mailer:smtp-user-secret@smtp.internal:587?pass=smtp-query-secret&auth_token=smtp-token-secret&pool=true',
};
const SECRETS = ['pg-query-secret', 'pg-ssl-secret', 'redis-query-secret', 'smtp-user-secret', 'smtp-query-secret', 'smtp-token-secret'];

describe('lipira config with live connector credentials', () => {
  const credentials = {
    LIVE_ROUTES: 'airtel:airtel,payout:airtel,tnm:paychangu',
    AIRTEL_CLIENT_ID: 'airtel-client-id',
    AIRTEL_CLIENT_SECRET: 'airtel-client-secret-value',
    AIRTEL_DISBURSEMENT_PIN: '9876',
    AIRTEL_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
    AIRTEL_CALLBACK_SECRET: 'airtel-callback-secret-value',
    PAYCHANGU_UPSTREAM_SECRET_KEY: 'sec-live-upstream-secret-value',
    PAYCHANGU_UPSTREAM_WEBHOOK_SECRET: 'upstream-webhook-secret-value',
  };

  test('shows the routes and the client id, masks every secret and the PIN', async () => {
    const result = await lipira(['config', '--json'], credentials);
    assert.equal(result.code, 0, result.stderr);
    for (const secret of ['airtel-client-secret-value', '9876', 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA', 'airtel-callback-secret-value', 'sec-live-upstream-secret-value', 'upstream-webhook-secret-value']) {
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
    assert.equal(config.DATABASE_URL, 'postgres://lipira@db.internal:5432/lipira?sslmode=require&password=****&sslpassword=****');
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
