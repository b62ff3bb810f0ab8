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
