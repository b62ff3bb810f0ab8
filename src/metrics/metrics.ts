import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { App } from '../http/server.ts';

export interface MetricsDeps {
  config: Config;
  db: Kysely<DB>;
}

/** PLACEHOLDER (the metrics helper replaces the body): request metrics hooks and `GET /metrics`. */
export function registerMetrics(_app: App, _deps: MetricsDeps): void {}
