import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { useCleanup } from '../helpers/cleanup.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { startServe } from '../helpers/serve-process.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/**
 * The gateway's own rotating backups (BACKUP_DIR, BACKUP_INTERVAL, BACKUP_KEEP; issue 34), in a
 * real `lipira serve`: taken every interval and checked, the oldest beyond BACKUP_KEEP removed,
 * their age in `lipira_backup_age_seconds`, and `/readyz` warning (still ready) once the last good
 * one is more than two intervals old.
 */

const BACKUP = /^lipira-backup-.*Z\.db$/;

const backupsIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => BACKUP.test(name))
    .sort();

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  limitMs = 30_000,
): Promise<T> {
  for (const deadline = Date.now() + limitMs; Date.now() < deadline; await sleep(100)) {
    const found = await probe();
    if (found !== undefined) return found;
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function readiness(url: string): Promise<{ status: number; data: { backups: string; warnings: string[] } }> {
  const response = await fetch(`${url}/readyz`);
  return {
    status: response.status,
    data: ((await response.json()) as { data: { backups: string; warnings: string[] } }).data,
  };
}

async function backupAge(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = /^lipira_backup_age_seconds (\S+)$/m.exec(text)?.[1];
  assert.ok(value, 'the metric is exported');
  return value === '+Inf' ? Infinity : Number(value);
}

describe('scheduled backups on sqlite', () => {
  test('rotate, are checked copies, and their age shows in the metric and /readyz', { timeout: 90_000 }, async (t) => {
    const cleanup = useCleanup(t);
    const testDb = freshDatabase('sqlite');
    cleanup(() => testDb.drop());
    const folder = temporaryFolder('lipira-backup-dir-');
    cleanup(async () => folder.remove());
    const dir = path.join(folder.dir, 'backups');
    fs.mkdirSync(dir);
    // Left by an earlier gateway: a backup long out of date, and a copy a crash cut short.
    fs.writeFileSync(path.join(dir, 'lipira-backup-2020-01-01T00-00-00.000Z.db'), 'old');
    fs.writeFileSync(path.join(dir, 'lipira-backup-2020-01-02T00-00-00.000Z.db.partial'), 'cut short');
    const gateway = await startServe({
      DATABASE_URL: testDb.url,
      BACKUP_DIR: dir,
      BACKUP_INTERVAL: '1s',
      BACKUP_KEEP: '2',
    });
    cleanup(() => gateway.dispose());

    // Two more rounds after the first new one, whose third removes it: BACKUP_KEEP holds the count at two.
    const first = await until('a first backup', () =>
      backupsIn(dir).find((name) => !name.startsWith('lipira-backup-2020')),
    );
    await until('three more rounds', () =>
      backupsIn(dir).at(-1)! > first && backupsIn(dir).length === 2 && !backupsIn(dir).includes(first)
        ? true
        : undefined,
    );
    const kept = backupsIn(dir);
    assert.equal(kept.length, 2, `kept: ${kept.join(', ')}`);
    assert.ok(
      kept.every((name) => name > first),
      'the backup left by the earlier gateway is rotated away too',
    );
    assert.ok(
      !fs.existsSync(path.join(dir, 'lipira-backup-2020-01-02T00-00-00.000Z.db.partial')),
      'the partial copy is removed',
    );
    const copy = new BetterSqlite3(path.join(dir, kept.at(-1)!), { readonly: true });
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    assert.ok((copy.prepare('select count(*) as count from kysely_migration').get() as { count: number }).count > 0);
    copy.close();

    assert.ok((await backupAge(gateway.url)) < 5);
    const ready = await readiness(gateway.url);
    assert.equal(ready.status, 200);
    assert.equal(ready.data.backups, 'recent');
    assert.deepEqual(ready.data.warnings, []);

    // The folder goes (a disk unmounted, a path changed): rounds fail, and after two intervals
    // without a good backup the gateway says so, while staying ready.
    fs.rmSync(dir, { recursive: true });
    fs.writeFileSync(dir, 'no longer a folder');
    const stale = await until('the warning', async () => {
      const ready = await readiness(gateway.url);
      return ready.data.backups === 'too old' ? ready : undefined;
    });
    assert.equal(stale.status, 200);
    assert.deepEqual(stale.data.warnings, [
      "no good backup for over 2s (twice BACKUP_INTERVAL): see the gateway's log for why",
    ]);
    assert.ok((await backupAge(gateway.url)) > 2);
    assert.match(gateway.output, /the scheduled backup failed/);
    assert.equal(await gateway.stop(), 0);
  });

  test('without BACKUP_DIR the gateway keeps none: /readyz says off and the metric has no series', async (t) => {
    const cleanup = useCleanup(t);
    const testDb = freshDatabase('sqlite');
    cleanup(() => testDb.drop());
    const gateway = await startServe({ DATABASE_URL: testDb.url });
    cleanup(() => gateway.dispose());
    assert.equal((await readiness(gateway.url)).data.backups, 'off');
    assert.doesNotMatch(await (await fetch(`${gateway.url}/metrics`)).text(), /^lipira_backup_age_seconds /m);
    await gateway.stop();
  });
});

describe('scheduled backups into a folder that cannot be made', () => {
  test('refuse the start, saying why', { timeout: 60_000 }, async (t) => {
    const cleanup = useCleanup(t);
    const testDb = freshDatabase('sqlite');
    cleanup(() => testDb.drop());
    const folder = temporaryFolder('lipira-backup-dir-');
    cleanup(async () => folder.remove());
    const file = path.join(folder.dir, 'a-file');
    fs.writeFileSync(file, '');
    const refused = await lipira(['serve'], { DATABASE_URL: testDb.url, BACKUP_DIR: file, PORT: '0' });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /BACKUP_DIR \S+a-file cannot hold backups: EEXIST/);
  });
});

describe('scheduled backups on postgres', { skip: !DATABASE_KINDS.includes('postgres') }, () => {
  test('are refused at start with what to do instead', async (t) => {
    const cleanup = useCleanup(t);
    const folder = temporaryFolder('lipira-backup-dir-');
    cleanup(async () => folder.remove());
    const refused = await lipira(['serve'], { DATABASE_URL: freshDatabase('postgres').url, BACKUP_DIR: folder.dir });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Invalid configuration: BACKUP_DIR is for SQLite only: .*pg_dump/);
  });
});
