import { Type } from '@sinclair/typebox';
import { ping, type Database } from '../db/database.ts';
import { success, SuccessEnvelope } from '../http/envelope.ts';
import type { App } from '../http/server.ts';
import { ApiError } from '../shared/errors.ts';

export function registerHealthRoutes(app: App, database: Database): void {
  app.get(
    '/healthz',
    { schema: { summary: 'Liveness: the process is up and the database answers', response: { 200: SuccessEnvelope(Type.Object({ database: Type.String() })) } } },
    async (request) => {
      try {
        await ping(database);
      } catch (error) {
        request.log.error({ err: error }, 'database ping failed');
        throw new ApiError('unavailable');
      }
      return success('OK', { database: 'up' });
    },
  );
}
