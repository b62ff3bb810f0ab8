import v8 from 'node:v8';

/**
 * V8's heap settings for a long-running server, each unless the operator set it (in NODE_OPTIONS
 * or on the node command line):
 * - `--heap-growing-percent=25`: after a full collection the old generation may grow to 1.25 ×
 *   what was live before the next one (V8 otherwise picks up to 4 × from its own GC speed).
 *   Under load a gateway promotes many request objects that die soon after; with the default
 *   the old generation filled with them and the process held 240 MB after the benchmark,
 *   against ~32 MB of live objects.
 * - `--max-semi-space-size=8` (MB, default 16): a smaller young generation.
 * Measured (docs/performance-history.md): RSS after the whole benchmark 241 → 175 MB; garbage collection
 * pauses under a verify load 1.4 % → 1.7 % of the time.
 */
const SERVER_HEAP_FLAGS = ['--heap-growing-percent=25', '--max-semi-space-size=8'];

/** The flags to apply: those whose name the operator's own flags do not mention. */
export function heapFlagsToApply(operatorFlags: string): string[] {
  return SERVER_HEAP_FLAGS.filter((flag) => !operatorFlags.includes(flag.slice(0, flag.indexOf('='))));
}

/** Applies the server's heap settings to this process; to be called before the server allocates. */
export function tuneHeapForServing(): void {
  const operatorFlags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  for (const flag of heapFlagsToApply(operatorFlags)) v8.setFlagsFromString(flag);
}
