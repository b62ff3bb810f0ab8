import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { lipira } from '../helpers/cli.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { freePort } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { startServe } from '../helpers/serve-process.ts';
import { parseMessage } from '../helpers/smtp.ts';
import { temporaryFolder, type TemporaryFolder } from '../helpers/temp-folders.ts';

/** A working folder holding `.env` with these lines, removed after the test. */
function folderWithEnvFile(cleanup: ReturnType<typeof useCleanup>, lines: string): TemporaryFolder {
  const folder = temporaryFolder('lipira-env-file-');
  cleanup(async () => folder.remove());
  fs.writeFileSync(path.join(folder.dir, '.env'), lines);
  return folder;
}

for (const kind of DATABASE_KINDS) {
  describe(`settings from a .env file on ${kind}`, () => {
    test('users create prints its link on the port .env gives, serve listens there, and emails the same link', async (t) => {
      const cleanup = useCleanup(t);
      const database = kind === 'postgres' ? freshDatabase(kind) : null;
      if (database) cleanup(() => database.drop());
      const port = await freePort();
      const folder = folderWithEnvFile(
        cleanup,
        `# This folder's gateway\nPORT=${port}\n${database ? `DATABASE_URL="${database.url}"\n` : ''}`,
      );

      const created = await lipira(['users', 'create', '--operator', '--email', 'ops@example.com'], {}, folder.dir);
      assert.equal(created.code, 0, created.stderr);
      const link = /^ {2}(\S+)$/m.exec(created.stdout)?.[1] ?? '';
      assert.match(
        link,
        new RegExp(`^http://127\\.0\\.0\\.1:${port}/dashboard/set-password\\?token=\\S+$`),
        created.stdout,
      );

      const server = await startServe({}, { cwd: folder.dir, portFromEnvFile: port });
      cleanup(() => server.stop());
      const outbox = path.join(folder.dir, 'data', 'outbox');
      const file = await eventually(
        'the set-password email',
        async () => fs.existsSync(outbox) && fs.readdirSync(outbox).find((name) => name.endsWith('.eml')),
      );
      const email = parseMessage(fs.readFileSync(path.join(outbox, file), 'utf8'));
      assert.ok(email.text.includes(link), email.text);
      assert.ok(email.html.includes(link.replaceAll('&', '&amp;')), email.html);
      assert.equal(
        (await fetch(link)).status,
        200,
        'the link opens the set-password page of the gateway the .env file configures',
      );
    });
  });
}

describe('the .env file and the environment', () => {
  test("a variable of the environment wins over the file, even set empty; the file's others still count", async (t) => {
    const folder = folderWithEnvFile(
      useCleanup(t),
      'PORT=8200\nexport DEFAULT_FEE_PERCENT=2.5\nEMAIL_FROM="Mango Shop <shop@mango.example>" # the sender\n',
    );
    const fromFile = JSON.parse((await lipira(['config', '--json'], {}, folder.dir)).stdout);
    assert.equal(fromFile.PORT, '8200');
    assert.equal(fromFile.PUBLIC_BASE_URL, 'http://127.0.0.1:8200');
    assert.equal(fromFile.EMAIL_FROM, 'Mango Shop <shop@mango.example>');

    const overridden = await lipira(['config', '--json'], { PORT: '8100' }, folder.dir);
    assert.equal(overridden.code, 0, overridden.stderr);
    const shown = JSON.parse(overridden.stdout);
    assert.equal(shown.PORT, '8100');
    assert.equal(shown.PUBLIC_BASE_URL, 'http://127.0.0.1:8100');
    assert.equal(shown.DEFAULT_FEE_PERCENT, '2.5');

    assert.equal(
      JSON.parse((await lipira(['config', '--json'], { PORT: '' }, folder.dir)).stdout).PORT,
      '8000',
      'set empty, it means the default',
    );
  });

  test('a malformed .env stops every command with its file and line, not a stack trace, never repeating the line', async (t) => {
    const cleanup = useCleanup(t);
    const cases: Array<[lines: string, line: number, problem: RegExp]> = [
      ['PORT=8100\n\nSMTP_PASSWORD smtp-line-secret\n', 3, /expected NAME=value, a # comment or an empty line/],
      [
        '# mail\nSMTP_URL="smtp://mailer:smtp-quote-secret@smtp.example:587\nPORT=8100\n',
        2,
        /the value's opening " is never closed/,
      ],
      ["METRICS_TOKEN='metrics-trailing-secret' and more\n", 1, /only a # comment may follow the value's closing '/],
    ];
    for (const [lines, line, problem] of cases) {
      const folder = folderWithEnvFile(cleanup, lines);
      const file = path.join(fs.realpathSync(folder.dir), '.env');
      for (const command of [['config'], ['serve'], ['users', 'create', '--operator', '--email', 'ops@example.com']]) {
        const result = await lipira(command, {}, folder.dir);
        assert.equal(result.code, 2, `${command.join(' ')}: ${result.stdout}`);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.ok(result.stderr.startsWith(`lipira: ${file} line ${line}: `), result.stderr);
        assert.match(result.stderr, problem);
        assert.doesNotMatch(result.stderr, /secret/, 'the line may hold a secret');
      }
    }
  });

  test('a quoted value may span lines', async (t) => {
    const pem = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----';
    const folder = folderWithEnvFile(useCleanup(t), `AIRTEL_PUBLIC_KEY="${pem}"\nPORT=8300\n`);
    const result = await lipira(['config', '--json'], {}, folder.dir);
    assert.equal(result.code, 0, result.stderr);
    const shown = JSON.parse(result.stdout);
    assert.equal(shown.AIRTEL_PUBLIC_KEY, '(PEM public key)');
    assert.equal(shown.PORT, '8300');
  });
});
