import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { migrationNames } from '../../src/db/migrate.ts';
import { inNumberOrder } from '../../src/db/migration-order.ts';

const named = (...names: string[]) => names.map((name) => ({ name }));

test('migrations are ordered by the number in their names, whatever order they are listed in', () => {
  const listed = named(
    '0002_b',
    '0011_k',
    '0001_a',
    '0003_c',
    '0004_d',
    '0005_e',
    '0007_g',
    '0008_h',
    '0009_i',
    '0010_j',
  );
  assert.deepEqual(
    inNumberOrder(listed).map(({ name }) => name),
    ['0001_a', '0002_b', '0003_c', '0004_d', '0005_e', '0007_g', '0008_h', '0009_i', '0010_j', '0011_k'],
  );
});

test('a skipped number, a repeated one, the unused 0006 and a name without a number are refused', () => {
  assert.throws(() => inNumberOrder(named('0001_a', '0003_c')), /No migration is numbered 0002/);
  assert.throws(() => inNumberOrder(named('0002_b')), /No migration is numbered 0001/);
  assert.throws(() => inNumberOrder(named('0001_a', '0002_b', '0002_c')), /Two migrations are numbered 0002/);
  assert.throws(
    () => inNumberOrder(named('0001_a', '0002_b', '0003_c', '0004_d', '0005_e', '0006_f')),
    /"0006_f" takes a number kept unused/,
  );
  assert.throws(() => inNumberOrder(named('0001_a', 'users')), /"users" is not named NNNN_words/);
});

test('every file in src/db/migrations is a migration, in number order', () => {
  const folder = path.join(import.meta.dirname, '../../src/db/migrations');
  const files = fs
    .readdirSync(folder)
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
  assert.deepEqual(migrationNames(), files);
});
