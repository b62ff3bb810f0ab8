import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lipira, ROOT } from '../helpers/cli.ts';
import { temporaryFolder, type TemporaryFolder } from '../helpers/temp-folders.ts';

/** The settings reference (docs/operate/configuration.md): each variable with the default it documents, in its order. */
function documentedDefaults(): Map<string, string> {
  const table = fs.readFileSync(path.join(ROOT, 'docs/operate/configuration.md'), 'utf8');
  return new Map([...table.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((row) => [row[1]!, row[2]!.trim()]));
}

describe('lipira config', () => {
  const documented = documentedDefaults();
  let cwd: TemporaryFolder;
  // Every documented variable set empty, which means "the default": whatever the environment running the tests holds.
  let unset: Record<string, string>;

  before(() => {
    cwd = temporaryFolder('lipira-config-');
    unset = Object.fromEntries([...documented.keys()].map((variable) => [variable, '']));
  });
  after(() => cwd.remove());

  /** The default the reference documents, as `lipira config` run in `dir` must show it. */
  function expectedDefault(cell: string, dir: string): string | null {
    if (cell === '(unset)') return null;
    const value = /^`([^`]+)`$/.exec(cell)?.[1];
    assert.ok(value, `the reference documents a default as \`value\` or (unset), not ${cell}`);
    if (value === 'http://HOST:PORT')
      return `http://${documented.get('HOST')!.slice(1, -1)}:${documented.get('PORT')!.slice(1, -1)}`;
    // Relative paths are resolved against the working directory.
    return value.replace(
      /^(sqlite:)?(\.\/.*)$/,
      (_all, scheme: string | undefined, file: string) => `${scheme ?? ''}${path.resolve(dir, file)}`,
    );
  }

  test('--json shows every variable of docs/operate/configuration.md, in its order, with the default it gives', async () => {
    const result = await lipira(['config', '--json'], unset, cwd.dir);
    assert.equal(result.code, 0, result.stderr);
    const shown = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(shown), [...documented.keys()]);
    const dir = fs.realpathSync(cwd.dir);
    for (const [variable, cell] of documented) assert.equal(shown[variable], expectedDefault(cell, dir), variable);
  });

  test('--markdown prints the committed configuration reference, byte for byte, whatever is set', async () => {
    const result = await lipira(
      ['config', '--markdown'],
      { ...unset, PORT: '8123', DEFAULT_FEE_PERCENT: '5' },
      cwd.dir,
    );
    assert.equal(result.code, 0, result.stderr);
    const committed = fs.readFileSync(path.join(ROOT, 'docs/operate/configuration.md'), 'utf8');
    assert.equal(result.stdout, committed, 'docs/operate/configuration.md is stale: run npm run docs:settings');
    assert.match(result.stdout, /^\| `METRICS_TOKEN` \| \(unset\) \| yes \| /m, 'a secret setting says so');
  });

  test('--json and --markdown together are refused, exit 2, in one line', async () => {
    const result = await lipira(['config', '--json', '--markdown'], unset, cwd.dir);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'lipira: --json and --markdown cannot be given together\n');
  });

  test('the listing names the variables and shows values as they are written', async () => {
    const result = await lipira(['config'], unset, cwd.dir);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^DEFAULT_FEE_PERCENT +3$/m);
    assert.match(result.stdout, /^CHECKOUT_TTL +24h$/m);
    assert.match(result.stdout, /^WEBHOOK_RETRY_SCHEDULE +5s,5m,30m,2h,5h,10h,10h$/m);
    assert.match(result.stdout, /^WEBHOOK_ALLOW_LOOPBACK +off$/m);
    assert.match(result.stdout, /^SMTP_URL +\(unset\)$/m);
    assert.doesNotMatch(result.stdout, /defaultFeeBasisPoints|checkoutTtlMs|300\b|86400000/);
  });

  test('what it shows, set again, is the same configuration', async () => {
    const custom = {
      ...unset,
      DEFAULT_FEE_PERCENT: '2.5',
      CHECKOUT_TTL: '7d',
      SANDBOX_MOBILE_DELAY: '0',
      WEBHOOK_TIMEOUT: '1500ms',
      SETTLEMENT_INTERVAL: '90m',
      WEBHOOK_RETRY_SCHEDULE: '1s,36h',
      WEBHOOK_ALLOW_LOOPBACK: 'on',
    };
    const first = JSON.parse((await lipira(['config', '--json'], custom, cwd.dir)).stdout);
    assert.equal(first.DEFAULT_FEE_PERCENT, '2.5');
    assert.equal(first.CHECKOUT_TTL, '7d');
    assert.equal(first.SANDBOX_MOBILE_DELAY, '0');
    assert.equal(first.WEBHOOK_TIMEOUT, '1500ms');
    assert.equal(first.SETTLEMENT_INTERVAL, '90m');
    assert.equal(first.WEBHOOK_RETRY_SCHEDULE, '1s,36h');
    assert.equal(first.WEBHOOK_ALLOW_LOOPBACK, 'on');
    const again = Object.fromEntries(
      Object.entries<string | null>(first).map(([variable, value]) => [variable, value ?? '']),
    );
    assert.deepEqual(JSON.parse((await lipira(['config', '--json'], again, cwd.dir)).stdout), first);
  });
});
