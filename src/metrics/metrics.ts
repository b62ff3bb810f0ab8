import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import { ErrorEnvelope } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { ApiError } from '../shared/errors.ts';
import { trackRequests } from './http-metrics.ts';
import { queueMetrics } from './queue-metrics.ts';
import { registerAtScrape } from './scrape-time-metric.ts';
import { registerBackupAge } from './backup-metrics.ts';
import type { BackupStatus } from '../operations/backup-schedule.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';

export interface MetricsDeps {
  config: Config;
  database: Pick<Database, 'db' | 'statements'>;
  clock: Clock;
  lifecycle: { backups: BackupStatus | null };
}

/**
 * Request metrics for every route, and `GET /metrics` in the Prometheus text format. Each app
 * has its own registry, not prom-client's global one: several gateways may share a process.
 */
export function registerMetrics(
  app: App,
  { config, database: { db, statements }, clock, lifecycle }: MetricsDeps,
): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'lipira_' });
  trackRequests(app, registry);
  registerAtScrape(
    registry,
    'lipira_database_statements_total',
    'counter',
    "Statements sent to the database: queries, transactions' BEGINs and COMMITs, prepared statements.",
    () => [{ labels: {}, value: statements.sent }],
  );
  registerBackupAge(registry, lifecycle);
  const queues = queueMetrics(registry, db);
  const authorized = bearerCheck(config.metricsToken);

  app.get(
    '/metrics',
    {
      config: { servedWhenOverloaded: true },
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'The Prometheus text format. When METRICS_TOKEN is set, send `Authorization: Bearer <METRICS_TOKEN>` (not a secret key).',
        // The token, or nothing when none is set (the empty requirement).
        security: [{ metricsToken: [] }, {}],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
          401: Type.Ref(ErrorEnvelope),
        },
      },
    },
    async (request, reply) => {
      if (!authorized(request.headers.authorization)) throw new ApiError('unauthenticated');
      try {
        await queues.refresh(clock.now());
      } catch (error) {
        // The request and process metrics matter most while the database is down: serve them.
        request.log.error({ err: error }, 'metrics: reading the queues failed');
        queues.clear();
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}

/** Open when no token is configured; otherwise the bearer token must match, compared in constant time. */
function bearerCheck(token: string | null): (header: string | undefined) => boolean {
  if (token === null) return () => true;
  // Comparing digests makes both sides the same length, so not even the token's length leaks.
  const expected = digest(token);
  return (header) => {
    const presented = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    return typeof presented === 'string' && timingSafeEqual(digest(presented), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
