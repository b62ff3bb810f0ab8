import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { checkLedger } from '../../src/ledger/ledger-service.ts';
import { startGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createMerchant, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { freshDatabase, type TestDatabase } from './databases.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { temporaryFolder } from './temp-folders.ts';
import type { Clock } from '../../src/shared/clock.ts';

export interface TestGateway {
  url: string;
  gateway: Gateway;
  database: TestDatabase;
  newMerchant(name?: string): Promise<MerchantCredentials>;
  close(): Promise<void>;
}

/**
 * What every test gateway and `lipira serve` of the suite runs with unless a test says otherwise:
 * the merchants' webhook receivers in tests (receiver.ts) listen on loopback, where test-mode
 * webhooks go only when the operator allows it. Tests of that refusal set it to `off`. Test
 * payments settle as live ones do, a day later (not at once, the default): the suite's scenarios
 * watch money wait in the collection balance and settle, which is the path live money takes; the
 * tests of immediate test settlement ask for it (`TEST_SETTLEMENT: 'immediate'`). A gateway
 * late on its event loop because three suites and a browser share two cores is not overloaded:
 * shedding by lateness is off, but in the tests of shedding (overload.test.ts).
 */
export const TEST_SERVER_ENV = {
  WEBHOOK_ALLOW_LOOPBACK: 'on',
  TEST_SETTLEMENT: '24h',
  OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
};

/**
 * A real gateway on a loopback port over a fresh database of the given kind. Its receipts go to
 * a temporary folder of its own (removed on close) unless `env` names an OUTBOX_DIR: the default,
 * ./data/outbox, is the checkout's own. Its business time is the system's unless a test gives it a
 * clock of its own (`fakeClock`).
 */
export async function startTestGateway(
  kind: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  logger: FastifyBaseLogger | false = false,
  clock?: Clock,
): Promise<TestGateway> {
  const database = freshDatabase(kind);
  const outbox = temporaryFolder('lipira-outbox-');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    SHUTDOWN_GRACE: '0',
    OUTBOX_DIR: outbox.dir,
    ...TEST_SERVER_ENV,
    ...env,
  });
  const opened = await openMigratedDatabase(config.databaseUrl);
  const gateway = await startGateway(config, opened, logger, clock);
  return {
    url: gateway.url,
    gateway,
    database,
    newMerchant: (name = 'Test Shop') =>
      createMerchant(
        opened.db,
        { name, email: 'shop@example.com', webhookUrl: null, feeBasisPoints: 300 },
        gateway.clock.now(),
      ),
    async close() {
      await gateway.close();
      await database.drop();
      outbox.remove();
    },
  };
}

/**
 * Registers a gateway and one merchant for the enclosing `describe`: started before its
 * tests, closed (and its database dropped) after them. After every test the ledger check must
 * pass: whatever a scenario did, money balanced.
 */
export function useTestGateway(
  kind: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  clock?: Clock,
): { gw: TestGateway; merchant: MerchantCredentials } {
  const context = {} as { gw: TestGateway; merchant: MerchantCredentials };
  before(async () => {
    context.gw = await startTestGateway(kind, env, false, clock);
    context.merchant = await context.gw.newMerchant();
  });
  afterEach(() => assertLedgerBalanced(context.gw));
  after(() => context.gw.close());
  return context;
}

/** What a route that takes a secret key answers `key` with when it is not one: a public key is told what it is for. */
export function refusedKeyBody(key: string | null): { status: 'failed'; message: string; data: null } {
  const message = key?.startsWith('pub-')
    ? 'A public key can only create checkout sessions: use your secret key on your server.'
    : 'Unauthenticated.';
  return { status: 'failed', message, data: null };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are checked field by field
  text: string;
}

/** A refusal of one field with one message (equal to `message`, or matching it), checked whole. */
export function assertFieldError(res: ApiResponse, field: string, message: string | RegExp): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.status, 'failed');
  assert.equal(res.body.data, null);
  assert.deepEqual(Object.keys(res.body.message), [field], res.text);
  assert.equal(res.body.message[field].length, 1, res.text);
  if (typeof message === 'string') assert.equal(res.body.message[field][0], message);
  else assert.match(res.body.message[field][0], message);
}

export interface ApiRequest {
  method?: string;
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function call(base: string, path: string, request: ApiRequest = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  let body: string | undefined = request.rawBody;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A port that was free a moment ago, so that `checkout_url` can name it before the server starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The ledger invariants (`lipira ledger check`) over the gateway's database. */
export async function assertLedgerBalanced(gw: TestGateway): Promise<void> {
  assert.deepEqual(await checkLedger(gw.gateway.database.db), [], 'the ledger check passes');
}
