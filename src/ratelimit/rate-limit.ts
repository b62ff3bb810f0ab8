import type { Config } from '../config.ts';
import type { App } from '../http/server.ts';

/**
 * PLACEHOLDER (the rate-limit helper replaces the body): limits requests per secret key after
 * authentication; returns a function that releases what it holds (a Redis connection) on close.
 */
export async function registerRateLimit(_app: App, _config: Config): Promise<() => Promise<void>> {
  return async () => undefined;
}
