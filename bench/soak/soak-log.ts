import { percentiles, type Percentiles } from './percentiles.ts';
import { SoakTimeline } from './soak-timeline.ts';

/** The parts of a payment timed on their own; `webhook` is the gateway's request to the merchant. */
export const STEPS = {
  create: 'create POST /payment',
  page: 'page GET /checkout/:id',
  pay: 'pay POST /checkout/:id/pay/mobile-money',
  waiting: 'waiting page GET …/attempts/:chargeId',
  poll: 'status poll GET …/attempts/:chargeId/status',
  back: 'back to shop GET …/attempts/:chargeId (303)',
  webhook: 'payment to webhook (completion to arrival)',
  verify: 'verify GET /verify-payment/:tx_ref',
} as const;

export type Step = keyof typeof STEPS;

/** How one step went: latency over the steady window, errors over the whole run. */
export interface StepFigures extends Percentiles {
  step: string;
  /** Timed within the steady window (`count`). */
  /** Over the whole run, warm-up and drain included: the validity gate counts every one. */
  errors: number;
}

/** Kept per step, so the report says what went wrong and not only how often. */
const EXAMPLES_PER_STEP = 3;
/** An accepted answer slower than this is one a client has likely given up on (issue 33's overload limit). */
export const ACCEPTED_LIMIT_MS = 2_000;

/** Payments started within `from`–`to` that completed within `limitMs` of their start: the overload soak's goodput. */
export interface GoodputWindow {
  from: number;
  to: number;
  limitMs: number;
}

/**
 * What the soak's payments did. Latencies are kept only for what started within the steady
 * window (after the warm-up, before the offered load stops); errors and completions always, and
 * everything, second by second, in the timeline.
 */
export class SoakLog {
  completed = 0;
  completedInWindow = 0;
  /** Payments whose create was refused as busy: shed by the gateway, not failed. */
  refused = 0;
  /** Every 503 answer's latency, the whole run: a refusal should come at once. */
  readonly busyLatencies: number[] = [];
  /** Answers 503 to requests sent within the steady window: a plain soak's gate counts these (the warm-up may shed). */
  busyInWindow = 0;
  /** The slowest accepted answer (not a 503, not the webhook) of the whole run, and how many took over `ACCEPTED_LIMIT_MS`. */
  acceptedMaxMs = 0;
  acceptedOverLimit = 0;
  /** Completions counted against `goodputWindow`, when one is set. */
  completedInTime = 0;
  goodputWindow: GoodputWindow | null = null;
  private from = Infinity;
  private to = -Infinity;
  private readonly latencies = new Map<Step, number[]>();
  private readonly errors = new Map<Step, number>();
  private readonly examples = new Map<Step, string[]>();
  readonly timeline = new SoakTimeline();

  constructor(
    private readonly warmUpMs: number,
    private readonly loadMs: number,
  ) {}

  /** The load starts at `t0` (performance.now()): the steady window is set from it. */
  start(t0: number): void {
    this.from = t0 + this.warmUpMs;
    this.to = t0 + this.loadMs;
    this.timeline.start(t0);
  }

  get windowSeconds(): number {
    return (this.to - this.from) / 1000;
  }

  begin(at: number): void {
    this.timeline.paymentStarted(at);
  }

  /** An answer came (or, for `webhook`, the webhook did), `ms` after its request was sent at `startedAt`. */
  record(step: Step, startedAt: number, ms: number): void {
    if (step === 'webhook') this.timeline.webhookArrived(startedAt + ms, ms);
    else {
      this.timeline.answered(startedAt + ms, ms);
      this.acceptedMaxMs = Math.max(this.acceptedMaxMs, ms);
      if (ms > ACCEPTED_LIMIT_MS) this.acceptedOverLimit++;
    }
    if (!this.inWindow(startedAt)) return;
    const list = this.latencies.get(step);
    if (list) list.push(ms);
    else this.latencies.set(step, [ms]);
  }

  /** The gateway answered 503, busy, `ms` after the request was sent at `startedAt`. */
  busy(startedAt: number, ms: number): void {
    this.busyLatencies.push(ms);
    if (this.inWindow(startedAt)) this.busyInWindow++;
    this.timeline.answeredBusy(startedAt + ms);
  }

  /** The payment's create was refused as busy: the merchant would try it again later. */
  refuse(at: number): void {
    this.refused++;
    this.timeline.paymentRefused(at);
  }

  /** A request got no answer at all (the payment then fails at its step, too). */
  unanswered(at: number): void {
    this.timeline.requestFailed(at);
  }

  fail(step: Step, why: string, at: number): void {
    this.timeline.paymentFailed(at);
    this.errors.set(step, (this.errors.get(step) ?? 0) + 1);
    const examples = this.examples.get(step) ?? [];
    if (examples.length < EXAMPLES_PER_STEP && !examples.includes(why)) this.examples.set(step, [...examples, why]);
  }

  complete(at: number, startedAt: number): void {
    this.completed++;
    this.timeline.paymentCompleted(at);
    if (this.inWindow(at)) this.completedInWindow++;
    const goodput = this.goodputWindow;
    if (goodput && startedAt >= goodput.from && startedAt < goodput.to && at - startedAt <= goodput.limitMs)
      this.completedInTime++;
  }

  get failed(): number {
    return [...this.errors.values()].reduce((sum, n) => sum + n, 0);
  }

  figures(): StepFigures[] {
    return (Object.keys(STEPS) as Step[]).map((step) => ({
      step: STEPS[step],
      ...percentiles(this.latencies.get(step) ?? []),
      errors: this.errors.get(step) ?? 0,
    }));
  }

  /** `step: what went wrong`, a few of each kind. */
  errorExamples(): string[] {
    return [...this.examples].flatMap(([step, whys]) => whys.map((why) => `${STEPS[step]}: ${why}`));
  }

  private inWindow(at: number): boolean {
    return at >= this.from && at < this.to;
  }
}
