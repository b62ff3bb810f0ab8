import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { CLOCK_TICK_MICROSECONDS, cpuMicroseconds, machineCpuTicks, rssMegabytes } from './proc-stats.ts';
import type { ServerProcess } from './servers.ts';

export interface Scenario {
  name: string;
  server: ServerProcess;
  request: autocannon.Request;
  /** Connections for this scenario when not the run's (the dashboard's rows: a few people, not servers). */
  connections?: number;
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
  /** Bare node:http's req/s over the same rounds as this row (see `measureInRounds`); the baselines' own rows have none. */
  bareRequestsPerSecond?: number;
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

/**
 * Measures each scenario for `settings.durationSeconds` in all, as `rounds` slices taken in turn
 * (all of the first slices, then all of the second, ...). This machine's speed drifts by tens of
 * percent from one minute to the next and within a few seconds (other tenants): measured one
 * after the other, each row would meet a different machine, and a ratio to a baseline taken
 * minutes earlier would say more about the machine than about the gateway. Taken in turns, every
 * row spans the whole phase and meets the same drift.
 */
export async function measureInRounds(
  scenarios: Scenario[],
  settings: LoadSettings & { rounds: number },
  onSlice?: (scenario: Scenario, round: number) => void,
): Promise<Measurement[]> {
  const slices = scenarios.map((): Measurement[] => []);
  const slice = { connections: settings.connections, durationSeconds: settings.durationSeconds / settings.rounds };
  for (let round = 0; round < settings.rounds; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      onSlice?.(scenario, round);
      slices[index]!.push(await measure(scenario, slice));
    }
  }
  return slices.map(combine);
}

/** One row from its slices: their requests over their time, the worst p99, sums of the counts. */
function combine(slices: Measurement[]): Measurement {
  const responses = sum(slices, (m) => m.responses);
  const statusCodes: Record<string, number> = {};
  for (const m of slices)
    for (const [status, n] of Object.entries(m.statusCodes)) statusCodes[status] = (statusCodes[status] ?? 0) + n;
  const p50s = slices.map((m) => m.latencyP50Ms).sort((a, b) => a - b);
  return {
    scenario: slices[0]!.scenario,
    // Slices last equally long, so the mean of their rates is requests over time.
    requestsPerSecond: sum(slices, (m) => m.requestsPerSecond) / slices.length,
    latencyP50Ms: p50s[Math.floor(p50s.length / 2)]!,
    latencyP99Ms: Math.max(...slices.map((m) => m.latencyP99Ms)),
    responses,
    non2xx: sum(slices, (m) => m.non2xx),
    errors: sum(slices, (m) => m.errors),
    timeouts: sum(slices, (m) => m.timeouts),
    statusCodes,
    serverCpuMicrosPerRequest:
      responses > 0 ? sum(slices, (m) => m.serverCpuMicrosPerRequest * m.responses) / responses : 0,
    serverRssMb: slices.at(-1)!.serverRssMb,
    machineBusyBefore: Math.max(...slices.map((m) => m.machineBusyBefore)),
  };
}

const sum = (items: Measurement[], value: (m: Measurement) => number) =>
  items.reduce((total, m) => total + value(m), 0);

/** Loads one scenario and reads the server's CPU time around it, so the cost is the server's alone. */
export async function measure(scenario: Scenario, settings: LoadSettings): Promise<Measurement> {
  const { pid } = scenario.server;
  const machineBusyBefore = await quietMachine();
  const cpuBefore = cpuMicroseconds(pid);
  const result = await autocannon({
    url: scenario.server.url,
    connections: scenario.connections ?? settings.connections,
    duration: settings.durationSeconds,
    requests: [scenario.request],
  });
  const cpuUsed = (await settledCpuMicroseconds(pid)) - cpuBefore;
  const responses = result.requests.total;
  return {
    scenario: scenario.name,
    // Responses over the run's own clock: autocannon's per-second average comes from a histogram
    // whose buckets round it (two runs 14 responses apart printed the same rate to the hundredth).
    requestsPerSecond: responses / ((result.finish.getTime() - result.start.getTime()) / 1000),
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
  for (let last = machineCpuTicks(); Date.now() < deadline && busyShare > QUIET_BUSY_SHARE;) {
    await sleep(QUIET_SAMPLE_MS);
    const now = machineCpuTicks();
    busyShare = (now.busy - last.busy) / Math.max(1, now.total - last.total);
    last = now;
  }
  return busyShare;
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]),
  );
}
