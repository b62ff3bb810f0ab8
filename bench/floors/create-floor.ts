import { insertSessionIfNew } from '../../src/core/session-repository.ts';
import { CurrentCreateResponse } from '../../src/checkout/checkout-schemas.ts';
import { creationLog, hashRequest, newSession, type SessionRequest } from '../../src/checkout/checkout-service.ts';
import { checkoutUrl, createdView } from '../../src/checkout/checkout-views.ts';
import { success } from '../../src/http/envelope.ts';
import { ids } from '../../src/shared/ids.ts';
import type { Floor } from './floor.ts';

/**
 * `POST /payment` at what the database engine allows: the body parsed as JSON and checked no
 * further, the session row and its log row the gateway writes, inserted by the gateway's own
 * statements in one transaction of their own per request (no group commit on SQLite, as PostgreSQL
 * never has one), and the gateway's answer and schema. Every bench create has a tx_ref of its own;
 * a taken one (or a colliding random key, which the gateway would retry) is answered 409.
 */
export function registerCreateFloor({ app, db, owner, config }: Floor): void {
  app.post<{ Body: Omit<SessionRequest, 'generation'> }>(
    '/payment',
    { schema: { response: { 201: CurrentCreateResponse } } },
    async (request, reply) => {
      const now = Date.now();
      const fields: SessionRequest = { generation: 'current', ...request.body };
      const txRef = fields.tx_ref ?? ids.txRef();
      const session = newSession(owner, fields, txRef, hashRequest(fields, txRef), now, config.checkoutTtlMs);
      const log = creationLog(session, now);
      if (!(await db.transaction().execute((trx) => insertSessionIfNew(trx, session, log))))
        return reply.code(409).send();
      return reply
        .code(201)
        .send(
          success(
            'Hosted payment session generated successfully.',
            createdView(session, checkoutUrl(config.publicBaseUrl, session)),
          ),
        );
    },
  );
}
