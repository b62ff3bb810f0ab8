import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { Gateway } from './gateway.ts';
import { cpuMicroseconds, rssMegabytes } from './proc-stats.ts';
import type { ServerProcess } from './servers.ts';

export const NODE_HTTP_BASELINE = 'bare node:http GET';
export const FASTIFY_BASELINE = 'bare fastify GET';

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
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
}

const SEED_CONCURRENCY = 16;
const SETTLE_POLL_MS = 200;
const SETTLE_LIMIT_MS = 5_000;

/** The body every create sends; only tx_ref changes between requests. */
function createBody(txRef: string): string {
  return JSON.stringify({
    tx_ref: txRef,
    amount: 1000,
    currency: 'MWK',
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    callback_url: 'https://example.com/paid',
    return_url: 'https://example.com/cancel',
    customization: { title: 'Bench', description: 'Load test' },
  });
}

const seedRef = (index: number) => `seed-${index}`;

/** Pending sessions `seed-0` … `seed-<count-1>` for the verify scenarios to look up. */
export async function seedSessions(gateway: Gateway, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const response = await fetch(`${gateway.url}/payment`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.secretKey}`, 'content-type': 'application/json' },
        body: createBody(seedRef(index)),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`seeding ${seedRef(index)}: HTTP ${response.status} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

/** The batch, in the order it runs: the two baselines first, then the gateway routes. */
export function scenarios(nodeHttp: ServerProcess, fastify: ServerProcess, gateway: Gateway, seeded: number): Scenario[] {
  const auth = { authorization: `Bearer ${gateway.secretKey}` };
  // tx_ref is unique per merchant, so every create needs a reference no other request has used.
  let created = 0;
  const randomSeeded = () => seedRef(Math.floor(Math.random() * seeded));
  return [
    { name: NODE_HTTP_BASELINE, server: nodeHttp, request: { method: 'GET', path: '/' } },
    { name: FASTIFY_BASELINE, server: fastify, request: { method: 'GET', path: '/' } },
    {
      name: 'create session POST /payment',
      server: gateway,
      request: {
        method: 'POST',
        path: '/payment',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: createBody(`bench-${process.pid}-${created++}`) }),
      },
    },
    {
      name: 'verify GET /verify-payment/:ref',
      server: gateway,
      request: { method: 'GET', headers: auth, setupRequest: (request) => ({ ...request, path: `/verify-payment/${randomSeeded()}` }) },
    },
    {
      name: 'verify legacy GET /api/verify-payment/:ref',
      server: gateway,
      request: { method: 'GET', headers: auth, setupRequest: (request) => ({ ...request, path: `/api/verify-payment/${randomSeeded()}` }) },
    },
  ];
}

/** Loads one scenario and reads the server's CPU time around it, so the cost is the server's alone. */
export async function measure(scenario: Scenario, settings: LoadSettings): Promise<Measurement> {
  const { pid } = scenario.server;
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
  };
}

/**
 * autocannon stops at the deadline without waiting for the server, which may still be working
 * through requests it had already received. Waiting until its CPU time stops moving charges that
 * work to this scenario rather than the next, and keeps it off the gateway's shutdown path.
 */
async function settledCpuMicroseconds(pid: number): Promise<number> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  let last = cpuMicroseconds(pid);
  while (Date.now() < deadline) {
    await sleep(SETTLE_POLL_MS);
    const now = cpuMicroseconds(pid);
    if (now === last) return now;
    last = now;
  }
  return last;
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]));
}
