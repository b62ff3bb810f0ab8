import { Worker } from 'node:worker_threads';
import type { ServedRoute } from './fuzz-routes.ts';
import type { CheckoutPool, WorldData } from './fuzz-world.ts';

/** One batch for the load generator: which route, which of its streams, how many, from which seed. */
export interface BatchJob {
  route: number;
  /** The route's refusals (requests its handler must refuse) rather than its generated requests. */
  refusals: boolean;
  count: number;
  seed: number;
  checkouts: CheckoutPool | null;
}

/** What became of one request, as judged by fuzz-oracle.ts. */
export interface Outcome {
  /** The status, or `error` when no answer came. */
  status: string;
  accepted: boolean;
  fiveHundred: boolean;
  leakedInternals: boolean;
  problems: string[];
  /** The record the accepted answer names as created (see Creates), if any. */
  named: string | null;
  /** The request and its answer in a line, when there is something to report about it. */
  description: string | null;
}

export interface ThreadSetup {
  world: WorldData;
  routes: ServedRoute[];
  inFlight: number;
}

/**
 * The load generator runs in a thread of its own, as a load generator would run on a machine of
 * its own: generating, sending and judging requests then does not take the CPU the gateway
 * (in the main thread, as the test helpers start it) needs to answer them.
 */
export class LoadGenerator {
  private pending: { resolve(outcomes: Outcome[]): void; reject(error: Error): void } | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (outcomes: Outcome[]) => this.settle((pending) => pending.resolve(outcomes)));
    worker.on('error', (error) => this.settle((pending) => pending.reject(error)));
    worker.on('exit', (code) =>
      this.settle((pending) => pending.reject(new Error(`the load generator exited (${code})`))),
    );
  }

  static start(setup: ThreadSetup): LoadGenerator {
    const entry = new URL('./fuzz-load-thread.ts', import.meta.url).href;
    // A worker does not inherit the --import tsx of its process: it registers tsx, then loads its TypeScript entry.
    const tsx = import.meta.resolve('tsx/esm/api');
    const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
    return new LoadGenerator(new Worker(bootstrap, { eval: true, workerData: setup }));
  }

  /** Generates, sends and judges one batch; one batch at a time. */
  run(job: BatchJob): Promise<Outcome[]> {
    if (this.pending) throw new Error('the load generator runs one batch at a time');
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private settle(action: (pending: NonNullable<LoadGenerator['pending']>) => void): void {
    const pending = this.pending;
    this.pending = null;
    if (pending) action(pending);
  }
}
