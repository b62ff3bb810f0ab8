import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { importGraph, SRC } from '../helpers/source-imports.ts';

/**
 * Which way imports run between the rooms of src/. A room is a folder or a file of src/ (a file
 * belongs to the longest room its path starts with); the layers go from the top down. A room may
 * import the rooms of any layer below its own and never one above; rooms of the same layer import
 * one another only where the layer says they share a floor. Composition roots put everything
 * together; features (the money stories) stand on `core`, the charge model they share, which
 * stands on the services and records below it; connectors speak operators' wire formats and know
 * nothing but `shared`. An import that runs the other way is fixed by moving the piece both sides
 * need down, not by listing it in EXCEPTIONS; those left are ones whose move belongs to other work.
 */
const LAYERS: ReadonlyArray<{ rooms: readonly string[]; floor?: true }> = [
  { rooms: ['app.ts', 'context.ts', 'payment-deps.ts', 'cli', 'http/server.ts'], floor: true },
  // Pages over every feature.
  { rooms: ['dashboard', 'home'] },
  // Stories told through another: a payment link opens ordinary checkout sessions; a test helper
  // makes what the money stories wait for happen now, through their own services.
  { rooms: ['payment-links', 'test-helpers'] },
  // The money stories: each on its own.
  { rooms: ['checkout', 'payments', 'payouts', 'callbacks'] },
  // Features the money stories hand work to: an uncounted success is refunded, the settler moves refunds on.
  { rooms: ['refunds', 'webhooks', 'sandbox', 'health', 'metrics'] },
  { rooms: ['core'] },
  // Operator work on a whole database (backups, restores, moving it to another): over the records and
  // the database; started by the gateway and the commands, reported by health and metrics.
  { rooms: ['operations'] },
  // The services and records under the payments core: one floor, guarded against cycles by import-cycles.test.ts.
  {
    rooms: [
      'ledger',
      'events',
      'emails',
      'merchants',
      'users',
      'logs',
      'ratelimit',
      'http',
      'web',
      'config.ts',
      'settings',
    ],
    floor: true,
  },
  { rooms: ['db'] },
  { rooms: ['connectors'] },
  { rooms: ['shared'] },
];

/** Imports against the direction that stay, each with why: `from` and `to` are path prefixes under src/. */
const EXCEPTIONS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: 'payments/three-ds-page',
    to: 'checkout/page/',
    why: "a direct card charge's 3-D Secure page is drawn with the hosted checkout page's shell, whose home is the HTML work's",
  },
  {
    from: 'payments/three-ds-page-routes.ts',
    to: 'checkout/checkout-page-routes.ts',
    why: "its errors are answered as the hosted page's are (answerPageError, pageSchema), until the HTML work gives them one home",
  },
  {
    from: 'shared/worker-loop.ts',
    to: 'db/unavailable.ts',
    why: 'a worker loop waits out a database outage, the one thing it knows of the database',
  },
];

const layerOf = new Map(LAYERS.flatMap((layer, index) => layer.rooms.map((room) => [room, index] as const)));

function roomOf(file: string): string {
  const relative = path.relative(SRC, file).split(path.sep).join('/');
  const rooms = [...layerOf.keys()].filter((room) => relative === room || relative.startsWith(`${room}/`));
  const room = rooms.sort((a, b) => b.length - a.length)[0];
  assert.ok(room, `${relative} belongs to no room of the folder direction table`);
  return room;
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

test('imports between the rooms of src/ run down the declared layers', () => {
  const against: string[] = [];
  for (const [file, imports] of importGraph()) {
    const from = roomOf(file);
    for (const target of imports) {
      const to = roomOf(target);
      if (from === to) continue;
      const [fromLayer, toLayer] = [layerOf.get(from)!, layerOf.get(to)!];
      if (fromLayer > toLayer || (fromLayer === toLayer && !LAYERS[fromLayer]!.floor)) {
        const exception = EXCEPTIONS.find(
          (e) => relative(file).startsWith(e.from) && relative(target).startsWith(e.to),
        );
        if (!exception) against.push(`${relative(file)} imports ${relative(target)} (${from} → ${to})`);
      }
    }
  }
  assert.deepEqual(against, [], `imports against the folder direction:\n${against.join('\n')}`);
});

test('every exception to the folder direction is still needed', () => {
  const used = EXCEPTIONS.filter((exception) =>
    [...importGraph()].some(
      ([file, imports]) =>
        relative(file).startsWith(exception.from) &&
        imports.some((target) => relative(target).startsWith(exception.to)),
    ),
  );
  assert.deepEqual(used, EXCEPTIONS);
});
