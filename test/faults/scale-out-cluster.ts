import { startServe, type ServeProcess } from '../helpers/serve-process.ts';

/** One place in the rotation: a `lipira serve` on a fixed port, replaced by a new process after a crash. */
export interface Slot {
  readonly index: number;
  readonly url: string;
  process: ServeProcess;
  /** In the rotation: false from shortly after it is killed until its replacement answers `/healthz`. */
  up: boolean;
}

/** A request that failed because the process it went to died (or was dead): expected, counted. */
export interface Fault {
  slot: number;
  at: number;
  what: string;
  cause: string;
}

/** A kill and the restart that followed it. */
export interface Outage {
  slot: number;
  killedAt: number;
  /** When the replacement answered `/healthz`; null while it is still starting. */
  backAt: number | null;
}

/** What `guard` returns when the request failed at the connection. */
export const FAULT = Symbol('fault');

/**
 * Several `lipira serve` processes on one database, used round-robin the way a load balancer
 * without sticky sessions would, skipping a process while it is down. Every request goes through
 * `guard`, so that a connection failure becomes a recorded fault rather than an exception, and
 * the test can check afterwards that faults only ever hit the process it killed, while it was down.
 */
export class Cluster {
  readonly faults: Fault[] = [];
  readonly outages: Outage[] = [];
  /** Processes that were killed, kept for their output. */
  private readonly killed: ServeProcess[] = [];
  private turn = 0;

  private constructor(
    readonly slots: Slot[],
    private readonly env: Record<string, string>,
  ) {}

  /** Starts `count` processes side by side; if one fails to start, the others are killed. */
  static async start(count: number, env: Record<string, string>): Promise<Cluster> {
    const started = await Promise.allSettled(Array.from({ length: count }, () => startServe(env)));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.dispose() : undefined)));
      throw failed.reason;
    }
    const processes = started.map((result) => (result as PromiseFulfilledResult<ServeProcess>).value);
    return new Cluster(
      processes.map((process, index) => ({ index, url: process.url, process, up: true })),
      env,
    );
  }

  /** The next process in the rotation that is up, preferring one not in `avoid`. */
  next(...avoid: Slot[]): Slot {
    const up = this.slots.filter((slot) => slot.up);
    if (up.length === 0) throw new Error('no process is up');
    const preferred = up.filter((slot) => !avoid.includes(slot));
    const choices = preferred.length > 0 ? preferred : up;
    this.turn += 1;
    return choices[this.turn % choices.length]!;
  }

  /** Runs `request` against `slot`; a connection failure is recorded as a fault and answered with FAULT. */
  async guard<T>(slot: Slot, what: string, request: () => Promise<T>): Promise<T | typeof FAULT> {
    try {
      return await request();
    } catch (error) {
      const cause = connectionFailure(error);
      if (cause === null) throw error;
      this.faults.push({ slot: slot.index, at: Date.now(), what, cause });
      return FAULT;
    }
  }

  /**
   * SIGKILLs the process in `index`, cutting off what it was doing; it stays in the rotation for
   * `noticeMs` more, as it would behind a load balancer until a health check notices, so requests
   * sent meanwhile are refused. The slot stays empty until `restart`.
   */
  async crash(index: number, noticeMs: number): Promise<Outage> {
    const slot = this.slots[index]!;
    const outage: Outage = { slot: index, killedAt: Date.now(), backAt: null };
    this.outages.push(outage);
    const gone = slot.process.crash();
    await new Promise((resolve) => setTimeout(resolve, noticeMs));
    slot.up = false;
    await gone;
    this.killed.push(slot.process);
    return outage;
  }

  /** Starts a new process on the crashed slot's port and puts it back in the rotation once it answers `/healthz`. */
  async restart(outage: Outage): Promise<void> {
    const slot = this.slots[outage.slot]!;
    slot.process = await startServe({ ...this.env, PORT: new URL(slot.url).port });
    outage.backAt = Date.now();
    slot.up = true;
  }

  /** Faults that no outage explains: on a process that was never killed, or long after it came back. */
  unexplainedFaults(graceMs: number): Fault[] {
    return this.faults.filter(
      (fault) =>
        !this.outages.some(
          (outage) =>
            outage.slot === fault.slot &&
            fault.at >= outage.killedAt &&
            fault.at <= (outage.backAt ?? Infinity) + graceMs,
        ),
    );
  }

  /** SIGTERM to every process; their exit codes. */
  stopAll(): Promise<Array<number | null>> {
    return Promise.all(this.slots.map((slot) => slot.process.stop()));
  }

  /** For cleanup after a failure. */
  async disposeAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.process.dispose()));
  }

  /** Everything the processes printed, for failure messages. */
  output(): string {
    const all = [...this.killed, ...this.slots.map((slot) => slot.process)];
    return all.map((process) => `--- pid ${process.pid} ---\n${process.output}`).join('\n');
  }
}

/** The cause of a fetch that failed at the connection (refused, reset, closed mid-answer), or null for any other error. */
function connectionFailure(error: unknown): string | null {
  if (!(error instanceof TypeError)) return null;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.message === 'fetch failed') return cause?.code ?? cause?.message ?? 'fetch failed';
  // A body cut off after the headers arrived surfaces as "terminated" from the body read.
  if (error.message === 'terminated') return cause?.code ?? 'terminated';
  return null;
}
