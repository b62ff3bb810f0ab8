import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** The lateness timer's period, as `@fastify/under-pressure` uses: its own period is not lateness. */
const RESOLUTION_MS = 10;

/** How the event loop and the process fared over the last sample's time. */
export interface LoopSample {
  /** The longest the loop was late in the while: how long a request that became ready waited to be read. */
  longestLatenessMs: number;
  /** The share of the while the loop was not waiting for events (a commit's fsync counts as busy). */
  utilization: number;
  /** The process's CPU over the while, in cores (every thread: the loop, the garbage collector, the thread pool). */
  cpuCores: number;
}

/**
 * Reads the event loop every `intervalMs` and hands each sample on, until `stop()`. The longest
 * lateness rather than the mean: a loop running through a backlog in long turns keeps its mean low
 * between them. Use and CPU together: the loop's use alone counts the commit's fsync as work, and
 * the process's CPU alone counts the thread pool's (password hashing, say).
 */
export function watchLoop(intervalMs: number, onSample: (sample: LoopSample) => void): { stop(): void } {
  const lateness = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  lateness.enable();
  let loopBefore = performance.eventLoopUtilization();
  let cpuBefore = process.cpuUsage();
  let before = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const loopNow = performance.eventLoopUtilization();
    const cpu = process.cpuUsage(cpuBefore);
    onSample({
      // No reading at all: the loop was held for the whole while.
      longestLatenessMs: lateness.count === 0 ? Infinity : lateness.max / 1e6 - RESOLUTION_MS,
      utilization: performance.eventLoopUtilization(loopNow, loopBefore).utilization,
      cpuCores: (cpu.user + cpu.system) / 1000 / (now - before),
    });
    lateness.reset();
    loopBefore = loopNow;
    cpuBefore = process.cpuUsage();
    before = now;
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      lateness.disable();
    },
  };
}
