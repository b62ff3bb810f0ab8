import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inReferenceOrder } from '../../src/db/catalog.ts';

const named = (...names: string[]) => names.map((name) => ({ name }));
const references = (pairs: Record<string, string[]>) =>
  new Map(Object.entries(pairs).map(([child, parents]) => [child, new Set(parents)]));

test('each table comes after the tables it references, ties in name order', () => {
  const ordered = inReferenceOrder(
    named('webhook_attempts', 'events', 'merchants', 'app_state', 'webhook_deliveries', 'charges'),
    references({
      webhook_attempts: ['webhook_deliveries'],
      webhook_deliveries: ['events', 'merchants'],
      events: ['merchants'],
      charges: ['merchants'],
    }),
  );
  assert.deepEqual(
    ordered.map((table) => table.name),
    ['app_state', 'merchants', 'charges', 'events', 'webhook_deliveries', 'webhook_attempts'],
  );
});

test('tables that reference one another in a cycle are refused, naming them', () => {
  assert.throws(
    () => inReferenceOrder(named('a', 'b', 'c'), references({ a: ['b'], b: ['a'] })),
    /^Error: the tables a, b reference one another in a cycle$/,
  );
  assert.throws(() => inReferenceOrder(named('a'), references({ a: ['a'] })), /the tables a reference/);
});
