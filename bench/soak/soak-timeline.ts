import { percentiles } from './percentiles.ts';

/** What the gateway and the machine were doing in one second, read by the sampler. */
export interface SecondSample {
  /** Cores the gateway kept busy (all its threads). */
  gatewayCores: number;
  /** Share of the machine's CPU time taken by other guests of the host (steal): the noise of a shared machine. */
  stealShare: number;
  /** Share of the machine's CPU time idle with a disk read or write pending: commits waiting on the disk. */
  iowaitShare: number;
  /** The gateway's resident memory at the end of the second. */
  rssMb: number;
}

/** Read from the gateway's own `/metrics` every few seconds. */
export interface MetricsSample {
  /** The event loop's p99 delay since the previous scrape. */
  eventLoopLagP99Ms: number;
  pendingSessions: number;
  pendingWebhooks: number;
  /** How long the longest-waiting due webhook has been due. */
  webhookQueueOldestSeconds: number;
}

/** One second of the soak, counting each event in the second it happened. */
export interface TimelineSecond {
  /** Seconds since the load started: this row covers [second, second + 1). */
  second: number;
  started: number;
  completed: number;
  failed: number;
  /** Payments whose create the gateway refused as busy (503): shed, not failed. */
  refused: number;
  /** Payments started and not yet ended when the second ended. */
  inFlight: number;
  /** Requests answered within the second, and the latency of those answers. */
  answers: number;
  answerP50Ms: number;
  answerP99Ms: number;
  /** Requests that got no answer at all (no answer in time, a reset). */
  requestErrors: number;
  /** Requests answered 503 as busy within the second (not among `answers`). */
  busy: number;
  /** Webhooks that arrived within the second, and how long after their payment's completion. */
  webhooks: number;
  webhookP99Ms: number;
  sample: SecondSample | null;
  metrics: MetricsSample | null;
}

interface Bucket {
  started: number;
  completed: number;
  failed: number;
  refused: number;
  latencies: number[];
  requestErrors: number;
  busy: number;
  webhookLatencies: number[];
  sample: SecondSample | null;
  metrics: MetricsSample | null;
}

/**
 * The soak second by second, warm-up and drain included: where the steady window's figures say
 * how the run went, the timeline says when and how it changed (a rate that falls with time, a
 * queue that grows, a machine that got slower).
 */
export class SoakTimeline {
  private readonly buckets: Bucket[] = [];
  private t0 = 0;

  start(t0: number): void {
    this.t0 = t0;
  }

  paymentStarted(at: number): void {
    this.at(at).started++;
  }

  paymentCompleted(at: number): void {
    this.at(at).completed++;
  }

  paymentFailed(at: number): void {
    this.at(at).failed++;
  }

  paymentRefused(at: number): void {
    this.at(at).refused++;
  }

  answeredBusy(at: number): void {
    this.at(at).busy++;
  }

  answered(at: number, ms: number): void {
    this.at(at).latencies.push(ms);
  }

  webhookArrived(at: number, ms: number): void {
    this.at(at).webhookLatencies.push(ms);
  }

  requestFailed(at: number): void {
    this.at(at).requestErrors++;
  }

  sampled(at: number, sample: SecondSample): void {
    this.at(at).sample = sample;
  }

  scraped(at: number, metrics: MetricsSample): void {
    this.at(at).metrics = metrics;
  }

  seconds(): TimelineSecond[] {
    let inFlight = 0;
    return Array.from(this.buckets, (bucket = emptyBucket(), second) => {
      inFlight += bucket.started - bucket.completed - bucket.failed - bucket.refused;
      const latency = percentiles(bucket.latencies);
      const webhook = percentiles(bucket.webhookLatencies);
      return {
        second,
        started: bucket.started,
        completed: bucket.completed,
        failed: bucket.failed,
        refused: bucket.refused,
        inFlight,
        answers: latency.count,
        answerP50Ms: latency.p50Ms,
        answerP99Ms: latency.p99Ms,
        requestErrors: bucket.requestErrors,
        busy: bucket.busy,
        webhooks: webhook.count,
        webhookP99Ms: webhook.p99Ms,
        sample: bucket.sample,
        metrics: bucket.metrics,
      };
    });
  }

  private at(time: number): Bucket {
    const second = Math.max(0, Math.floor((time - this.t0) / 1000));
    return (this.buckets[second] ??= emptyBucket());
  }
}

function emptyBucket(): Bucket {
  return {
    started: 0,
    completed: 0,
    failed: 0,
    refused: 0,
    latencies: [],
    requestErrors: 0,
    busy: 0,
    webhookLatencies: [],
    sample: null,
    metrics: null,
  };
}

/** Several seconds of the timeline as one row of the printed report. */
export interface TimelineSpan {
  from: number;
  to: number;
  /** Per second, averaged over the span. */
  startedPerSecond: number;
  completedPerSecond: number;
  failedPerSecond: number;
  refusedPerSecond: number;
  /** At the end of the span. */
  inFlight: number;
  answersPerSecond: number;
  /** The worst second's. */
  answerP99Ms: number;
  requestErrors: number;
  busyPerSecond: number;
  webhooksPerSecond: number;
  webhookP99Ms: number;
  /** Averaged over the seconds sampled; null when none was. */
  gatewayCores: number | null;
  stealShare: number | null;
  iowaitShare: number | null;
  /** The most the gateway's resident memory was in the span. */
  rssMb: number | null;
  /** The last scrape within the span. */
  metrics: MetricsSample | null;
}

/** The timeline in spans of `spanSeconds`, short enough to print a ten-minute run on one screen or two. */
export function timelineSpans(seconds: TimelineSecond[], spanSeconds: number): TimelineSpan[] {
  const spans: TimelineSpan[] = [];
  for (let from = 0; from < seconds.length; from += spanSeconds) {
    const part = seconds.slice(from, from + spanSeconds);
    const perSecond = (pick: (s: TimelineSecond) => number) => part.reduce((sum, s) => sum + pick(s), 0) / part.length;
    const sampled = part.flatMap((s) => (s.sample ? [s.sample] : []));
    const sampleMean = (pick: (s: SecondSample) => number) =>
      sampled.length === 0 ? null : sampled.reduce((sum, s) => sum + pick(s), 0) / sampled.length;
    spans.push({
      from,
      to: from + part.length,
      startedPerSecond: perSecond((s) => s.started),
      completedPerSecond: perSecond((s) => s.completed),
      failedPerSecond: perSecond((s) => s.failed),
      refusedPerSecond: perSecond((s) => s.refused),
      inFlight: part.at(-1)!.inFlight,
      answersPerSecond: perSecond((s) => s.answers),
      answerP99Ms: Math.max(...part.map((s) => s.answerP99Ms)),
      requestErrors: part.reduce((sum, s) => sum + s.requestErrors, 0),
      busyPerSecond: perSecond((s) => s.busy),
      webhooksPerSecond: perSecond((s) => s.webhooks),
      webhookP99Ms: Math.max(...part.map((s) => s.webhookP99Ms)),
      gatewayCores: sampleMean((s) => s.gatewayCores),
      stealShare: sampleMean((s) => s.stealShare),
      iowaitShare: sampleMean((s) => s.iowaitShare),
      rssMb: sampled.length === 0 ? null : Math.max(...sampled.map((s) => s.rssMb)),
      metrics: part.reduce<MetricsSample | null>((last, s) => s.metrics ?? last, null),
    });
  }
  return spans;
}

/** The most resident memory the timeline saw the gateway use; 0 when nothing was sampled. */
export function peakRssMb(seconds: TimelineSecond[]): number {
  return seconds.reduce((peak, s) => Math.max(peak, s.sample?.rssMb ?? 0), 0);
}
