import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { BIN, outputOf, type CliResult } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { temporaryFolder, type TemporaryFolder } from '../helpers/temp-folders.ts';

/** Enough merchants that `merchant list --json` prints several times a pipe's 64 KiB buffer. */
const MERCHANTS = 1000;

/**
 * Runs `lipira …` with its standard output or error a pipe whose reader is gone before it writes,
 * as `lipira … | head -1` leaves it once `head` has its line.
 */
function lipiraWithClosed(
  stream: 'stdout' | 'stderr',
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child[stream].destroy();
  return outputOf(child);
}

/** Runs a shell pipeline in `cwd`, in which `$LIPIRA` is the command; resolves to what it printed and its status. */
function shell(pipeline: string, env: Record<string, string>, cwd: string): Promise<CliResult> {
  return outputOf(
    spawn('sh', ['-c', pipeline], {
      cwd,
      env: { ...process.env, LOG_LEVEL: 'warn', LIPIRA: `${process.execPath} ${BIN}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

for (const kind of DATABASE_KINDS) {
  describe(`lipira with its output closed on ${kind}`, () => {
    let database: TestDatabase;
    let cwd: TemporaryFolder;
    let env: Record<string, string>;

    before(async () => {
      database = freshDatabase(kind);
      cwd = temporaryFolder('lipira-closed-output-');
      env = { DATABASE_URL: database.url };
      const opened = await openMigratedDatabase(database.url);
      try {
        for (let i = 0; i < MERCHANTS; i++)
          await createMerchant(
            opened.db,
            {
              name: `Shop ${i}`,
              email: `shop${i}@example.com`,
              webhookUrl: null,
              feeBasisPoints: 300,
            },
            Date.now(),
          );
      } finally {
        await opened.close();
      }
    });
    after(async () => {
      await database.drop();
      cwd.remove();
    });

    test('every command exits 0 without a word when nobody reads what it prints', async () => {
      for (const args of [
        ['--help'],
        ['config'],
        ['config', '--json'],
        ['merchant', 'list'],
        ['merchant', 'list', '--json'],
        ['ledger', 'check'],
      ]) {
        const result = await lipiraWithClosed('stdout', args, env, cwd.dir);
        assert.equal(result.stderr, '', `lipira ${args.join(' ')}`);
        assert.equal(result.code, 0, `lipira ${args.join(' ')}`);
      }
    });

    test('| head -1 over a listing several pipe buffers long: the first line, nothing on stderr, status 0', async () => {
      const piped = await shell(
        '{ $LIPIRA merchant list --json; echo "lipira exited $?" >&2; } | head -1',
        env,
        cwd.dir,
      );
      assert.equal(piped.stdout, '[\n');
      assert.equal(piped.stderr, 'lipira exited 0\n');
      const listing = await shell('{ $LIPIRA merchant list; echo "lipira exited $?" >&2; } | head -1', env, cwd.dir);
      assert.match(
        listing.stdout,
        /^mer_\w+ {2}Shop \d+ <shop\d+@example\.com> {2}fee 3% {2}receipts on {2}webhook -\n$/,
      );
      assert.equal(listing.stderr, 'lipira exited 0\n');
    });

    test('a refusal with its standard error closed keeps its status', async () => {
      const result = await lipiraWithClosed(
        'stderr',
        ['merchant', 'update', 'mer_missing', '--receipts', 'sometimes'],
        env,
        cwd.dir,
      );
      assert.equal(result.code, 2);
    });
  });
}
