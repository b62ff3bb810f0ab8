import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayClient } from './gateway-client.ts';
import { readMetrics, seriesValue } from './timeline-sampler.ts';

/**
 * Statements the gateway sent its database from `from` to `to` (performance.now() times, the
 * window `cpuOverWindow` reads), by its own count on `/metrics`. The two scrapes' own queue
 * reads fall inside, a handful against the window's thousands.
 */
export async function statementsOverWindow(client: GatewayClient, from: number, to: number): Promise<number> {
  const read = async () => seriesValue(await readMetrics(client), 'lipira_database_statements_total');
  await sleep(Math.max(0, from - performance.now()));
  const start = await read();
  await sleep(Math.max(0, to - performance.now()));
  return (await read()) - start;
}
