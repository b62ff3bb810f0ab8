// The stack's floor for each route the bench loads: bare Fastify answering it with the gateway's
// own query, view and response schema over the gateway's database, and nothing else (no
// authentication, rate limit, request id, metrics, logging, parameter schemas or background
// workers). What a gateway row costs beyond its floor row is what Lipira adds per request; what a
// floor row costs beyond bare Fastify is the route's database work and its answer, which any
// implementation of the route pays. Each route's handler (bench/floors/) calls the functions the
// gateway's route calls, imported from src/, and mirrors only what the bench's records need.
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { registerChargeFloors } from './floors/charge-floors.ts';
import { registerCheckoutFloors } from './floors/checkout-floors.ts';
import { registerCreateFloor } from './floors/create-floor.ts';
import { registerRefundAndPayoutFloors } from './floors/refund-payout-floors.ts';

// The gateway's own settings parser, on the environment the bench gives the gateway plus its
// address as PUBLIC_BASE_URL: links in the answers (checkout_url, next_page_url) are the gateway's.
const config = loadConfig();
// Without the serving limits (PostgreSQL's per-query timeouts): they guard against outages, one of
// the gateway's features rather than part of a route.
const database = await openDatabase(config.databaseUrl);
const app = Fastify({ logger: false });
const floor = { app, db: database.db, owner: { merchantId: process.env.MERCHANT_ID!, mode: 'test' as const }, config };
registerCheckoutFloors(floor);
registerChargeFloors(floor);
registerRefundAndPayoutFloors(floor);
registerCreateFloor(floor);
// The bench waits for a 2xx on its ready path.
app.get('/', async () => ({ ready: true }));
await app.listen({ port: config.port, host: '127.0.0.1' });
