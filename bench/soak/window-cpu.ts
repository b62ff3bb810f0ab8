import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMicroseconds } from '../proc-stats.ts';

/** Share of one core each process kept busy: the gateway (all its threads) and the bench process generating the load. */
export interface WindowCpu {
  gatewayCores: number;
  generatorCores: number;
}

/**
 * CPU time from `from` to `to` (performance.now() times), read when the timers fire: the steady
 * window, leaving out the warm-up (JIT compiling, modules loaded on first use) and the drain.
 */
export async function cpuOverWindow(gatewayPid: number, from: number, to: number): Promise<WindowCpu> {
  await sleep(Math.max(0, from - performance.now()));
  const start = { at: performance.now(), gateway: cpuMicroseconds(gatewayPid), generator: process.cpuUsage() };
  await sleep(Math.max(0, to - performance.now()));
  const elapsedMicros = (performance.now() - start.at) * 1000;
  const generator = process.cpuUsage(start.generator);
  return {
    gatewayCores: (cpuMicroseconds(gatewayPid) - start.gateway) / elapsedMicros,
    generatorCores: (generator.user + generator.system) / elapsedMicros,
  };
}
