import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMicroseconds } from '../proc-stats.ts';
import { cpuBetween, postgresCpuByPid } from './postgres-cpu.ts';

/** Share of one core each process kept busy: the gateway (all its threads) and the bench process generating the load. */
export interface WindowCpu {
  gatewayCores: number;
  generatorCores: number;
  /** PostgreSQL's processes serving the gateway's database (see `postgresCpuByPid`); null on SQLite, or a server not on this machine. */
  postgresCores: number | null;
  /** The machine's 1, 5 and 15 minute load averages as the window ended: what else wanted its cores. */
  loadAverage: number[];
}

/**
 * CPU time from `from` to `to` (performance.now() times), read when the timers fire: the steady
 * window, leaving out the warm-up (JIT compiling, modules loaded on first use) and the drain.
 * `postgresDatabase` names the gateway's database on PostgreSQL, null on SQLite.
 */
export async function cpuOverWindow(
  gatewayPid: number,
  postgresDatabase: string | null,
  from: number,
  to: number,
): Promise<WindowCpu> {
  const readPostgres = () =>
    postgresDatabase === null ? new Map<number, number>() : postgresCpuByPid(postgresDatabase);
  await sleep(Math.max(0, from - performance.now()));
  const start = {
    at: performance.now(),
    gateway: cpuMicroseconds(gatewayPid),
    generator: process.cpuUsage(),
    postgres: readPostgres(),
  };
  await sleep(Math.max(0, to - performance.now()));
  const elapsedMicros = (performance.now() - start.at) * 1000;
  const generator = process.cpuUsage(start.generator);
  const postgres = readPostgres();
  return {
    gatewayCores: (cpuMicroseconds(gatewayPid) - start.gateway) / elapsedMicros,
    generatorCores: (generator.user + generator.system) / elapsedMicros,
    postgresCores: postgres.size === 0 ? null : cpuBetween(start.postgres, postgres) / elapsedMicros,
    loadAverage: os.loadavg(),
  };
}
