import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';

export interface InFlight {
  /** Resolves once no request is being handled, or after `limitMs` whatever remains. */
  drained(limitMs: number): Promise<void>;
}

/**
 * Counts requests from their first hook to their reply. The server stops counting a request
 * whose client hung up, but its handler may still be using the database: closing waits for it.
 */
export function trackInFlight(app: FastifyInstance): InFlight {
  let running = 0;
  app.addHook('onRequest', async () => {
    running += 1;
  });
  app.addHook('onSend', async () => {
    running -= 1;
  });
  return {
    async drained(limitMs) {
      for (let waited = 0; running > 0 && waited < limitMs; waited += 10) await sleep(10);
    },
  };
}
