import { existsSync } from 'node:fs';
import type { Cleanup } from '../cleanup.ts';
import { cpuMicroseconds, machineCpuTicks, rssMegabytes } from '../proc-stats.ts';
import type { GatewayClient } from './gateway-client.ts';
import type { MetricsSample, SoakTimeline } from './soak-timeline.ts';

const SAMPLE_MS = 1_000;
/** Each scrape counts the gateway's tables: often enough to follow a queue, seldom enough to cost little. */
const SCRAPE_EVERY_SAMPLES = 10;

/**
 * Every second until cleanup: the gateway's CPU and the machine's steal and iowait over that
 * second, and the gateway's resident memory, into the timeline; every ten, the gateway's own
 * `/metrics`. Started with the load, so that each sample falls in the second it covers.
 */
export function sampleTimeline(
  gatewayPid: number,
  client: GatewayClient,
  timeline: SoakTimeline,
  cleanup: Cleanup,
): void {
  const read = () => ({
    at: performance.now(),
    gatewayMicros: cpuMicroseconds(gatewayPid),
    machine: machineCpuTicks(),
  });
  let last = read();
  let samples = 0;
  const sampler = setInterval(() => {
    // A gateway that died fails the run where its requests fail; the sampler only stops reading.
    if (!existsSync(`/proc/${gatewayPid}`)) return;
    const now = read();
    const machineTicks = now.machine.total - last.machine.total;
    timeline.sampled(last.at, {
      gatewayCores: (now.gatewayMicros - last.gatewayMicros) / ((now.at - last.at) * 1000),
      stealShare: (now.machine.steal - last.machine.steal) / machineTicks,
      iowaitShare: (now.machine.iowait - last.machine.iowait) / machineTicks,
      rssMb: rssMegabytes(gatewayPid),
    });
    last = now;
    if (++samples % SCRAPE_EVERY_SAMPLES === 0) {
      // A scrape the gateway was too busy to answer leaves a gap in the timeline, which is itself the finding.
      scrape(client).then(
        (metrics) => timeline.scraped(now.at, metrics),
        () => undefined,
      );
    }
  }, SAMPLE_MS);
  cleanup.add(async () => clearInterval(sampler));
}

async function scrape(client: GatewayClient): Promise<MetricsSample> {
  return parseMetrics(await readMetrics(client));
}

/** The gateway's `/metrics`, as text. */
export async function readMetrics(client: GatewayClient): Promise<string> {
  const answer = await client.request('GET', '/metrics');
  if (answer.status !== 200) throw new Error(`GET /metrics answered ${answer.status}`);
  return answer.body;
}

/** The few series the timeline shows, from the Prometheus text format; a missing series reads 0. */
export function parseMetrics(text: string): MetricsSample {
  const value = (series: string) => seriesValue(text, series);
  return {
    eventLoopLagP99Ms: value('lipira_nodejs_eventloop_lag_p99_seconds') * 1000,
    pendingSessions: value('lipira_checkout_sessions{status="pending"}'),
    pendingWebhooks: value('lipira_webhook_deliveries{status="pending"}'),
    webhookQueueOldestSeconds: value('lipira_webhook_queue_oldest_seconds'),
  };
}

/** One series' value (its name with any labels, as printed) in the Prometheus text format; 0 when missing. */
export function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
