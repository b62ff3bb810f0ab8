import { existsSync } from 'node:fs';
import type { Cleanup } from '../cleanup.ts';
import { rssMegabytes } from '../proc-stats.ts';

const SAMPLE_MS = 1_000;

/** Samples the process's resident memory every second until cleanup; `peak()` is the most seen so far. */
export function watchRssPeak(pid: number, cleanup: Cleanup): { peak(): number } {
  let peakMb = 0;
  const sampler = setInterval(() => {
    // A process that has died is reported by the reading after the load; the sampler only keeps the peak.
    if (existsSync(`/proc/${pid}`)) peakMb = Math.max(peakMb, rssMegabytes(pid));
  }, SAMPLE_MS);
  cleanup.add(async () => clearInterval(sampler));
  return { peak: () => peakMb };
}
