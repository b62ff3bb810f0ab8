/** The latency figures every table of the soak shows. */
export interface Percentiles {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentiles; zeros when nothing was timed. */
export function percentiles(samples: number[]): Percentiles {
  const sorted = Float64Array.from(samples).sort();
  const rank = (p: number) =>
    sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { count: sorted.length, p50Ms: rank(50), p90Ms: rank(90), p99Ms: rank(99), maxMs: rank(100) };
}
