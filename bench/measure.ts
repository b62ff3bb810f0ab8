import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { CLOCK_TICK_MICROSECONDS, cpuMicroseconds, machineCpuTicks, rssMegabytes } from './proc-stats.ts';
import type { ServerProcess } from './servers.ts';

export interface Scenario {
  name: string;
  server: ServerProcess;
  request: autocannon.Request;
}

export interface Measurement {
  scenario: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Responses received, whatever their status. */
  responses: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  serverCpuMicrosPerRequest: number;
  serverRssMb: number;
  /** Share of all CPUs busy just before the load started: above QUIET_BUSY_SHARE, the machine never became quiet. */
  machineBusyBefore: number;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
}

const SETTLE_POLL_MS = 100;
const SETTLE_LIMIT_MS = 5_000;
const QUIET_SAMPLE_MS = 200;
const QUIET_LIMIT_MS = 15_000;
/** Busy share of all CPUs below which the machine counts as quiet; the gateway's pollers and an idle database use a few percent. */
export const QUIET_BUSY_SHARE = 0.1;

/** Loads one scenario and reads the server's CPU time around it, so the cost is the server's alone. */
export async function measure(scenario: Scenario, settings: LoadSettings): Promise<Measurement> {
  const { pid } = scenario.server;
  const machineBusyBefore = await quietMachine();
  const cpuBefore = cpuMicroseconds(pid);
  const result = await autocannon({
    url: scenario.server.url,
    connections: settings.connections,
    duration: settings.durationSeconds,
    requests: [scenario.request],
  });
  const cpuUsed = (await settledCpuMicroseconds(pid)) - cpuBefore;
  const responses = result.requests.total;
  return {
    scenario: scenario.name,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    responses,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statusCounts(result),
    serverCpuMicrosPerRequest: responses > 0 ? cpuUsed / responses : 0,
    serverRssMb: rssMegabytes(pid),
    machineBusyBefore,
  };
}

/**
 * autocannon stops at the deadline without waiting for the server, which may still be working
 * through requests it had already received. Waiting until its CPU time stops moving charges that
 * work to this scenario rather than the next, and keeps it off the gateway's shutdown path.
 * "Stops moving" allows one clock tick per poll: the gateway's workers poll the database every
 * 50 ms, so its CPU time never quite stands still.
 */
async function settledCpuMicroseconds(pid: number): Promise<number> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  let last = cpuMicroseconds(pid);
  while (Date.now() < deadline) {
    await sleep(SETTLE_POLL_MS);
    const now = cpuMicroseconds(pid);
    if (now - last <= CLOCK_TICK_MICROSECONDS) return now;
    last = now;
  }
  return last;
}

/**
 * Waits until the machine is nearly idle and returns how busy it was at the end. Every ratio in the
 * table is against a baseline measured on the same machine: work left over from seeding (database
 * checkpoints and vacuums, settling charges) or anything else running would skew whichever row
 * it landed on.
 */
async function quietMachine(): Promise<number> {
  const deadline = Date.now() + QUIET_LIMIT_MS;
  let busyShare = 1;
  for (let last = machineCpuTicks(); Date.now() < deadline && busyShare > QUIET_BUSY_SHARE; ) {
    await sleep(QUIET_SAMPLE_MS);
    const now = machineCpuTicks();
    busyShare = (now.busy - last.busy) / Math.max(1, now.total - last.total);
    last = now;
  }
  return busyShare;
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]));
}
