// The stack's own floor for verify: bare Fastify answering `GET /verify-payment/:tx_ref` with the
// gateway's own query, view and response schema over the gateway's database, and nothing else (no
// authentication, rate limit, request id, metrics or logging). What the gateway's verify row
// costs beyond this row is what Lipira adds per request; what this row costs beyond bare Fastify
// is the database read and the answer, which any implementation of the route pays.
import Fastify from 'fastify';
import { findSessionWithLogsByTxRef } from '../src/checkout/checkout-repository.ts';
import { CurrentVerifyResponse } from '../src/checkout/checkout-schemas.ts';
import { currentVerifyView } from '../src/checkout/checkout-views.ts';
import { openDatabase } from '../src/db/database.ts';
import { success } from '../src/http/envelope.ts';

const owner = { merchantId: process.env.MERCHANT_ID!, mode: 'test' as const };
const database = await openDatabase(process.env.DATABASE_URL!);
const app = Fastify({ logger: false });
app.get<{ Params: { tx_ref: string } }>('/verify-payment/:tx_ref', { schema: { response: { 200: CurrentVerifyResponse } } }, async (request, reply) => {
  const session = await findSessionWithLogsByTxRef(database.db, owner, request.params.tx_ref);
  if (!session) return reply.code(404).send();
  return success('Payment details retrieved successfully.', currentVerifyView({ session, logs: session.logs, payment: null }));
});
// The bench waits for a 2xx on its ready path.
app.get('/', async () => ({ ready: true }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
