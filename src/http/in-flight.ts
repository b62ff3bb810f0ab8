import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';

export interface InFlight {
  /** Requests received and not yet answered (a stream counts until its answer starts). */
  running(): number;
  /** Resolves once no request is being handled, or after `limitMs` whatever remains. */
  drained(limitMs: number): Promise<void>;
}

/**
 * Counts requests from their first hook to their reply. The server stops counting a request
 * whose client hung up, but its handler may still be using the database: closing waits for it.
 */
export function trackInFlight(app: FastifyInstance): InFlight {
  let running = 0;
  // Callback hooks, not async ones: no promise per request.
  app.addHook('onRequest', (_request, _reply, done) => {
    running += 1;
    done();
  });
  app.addHook('onSend', (_request, _reply, payload, done) => {
    running -= 1;
    done(null, payload);
  });
  return {
    running: () => running,
    async drained(limitMs) {
      for (let waited = 0; running > 0 && waited < limitMs; waited += 10) await sleep(10);
    },
  };
}
