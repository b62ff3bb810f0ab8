import { OVERLOAD_SECONDS, type SoakOptions } from '../options.ts';
import { check, type TargetResult } from '../targets.ts';
import type { Phase } from './constant-arrivals.ts';
import { percentiles } from './percentiles.ts';
import { ACCEPTED_LIMIT_MS, type GoodputWindow, type SoakLog } from './soak-log.ts';
import type { TimelineSecond } from './soak-timeline.ts';

/**
 * The overload soak (`--soak --overload --rate CAPACITY`): the capacity offered for the warm-up,
 * twice it for a minute, then the capacity again; judged by issue 33's limits on what a gateway
 * shedding load must still do.
 */

/** A payment (session to verified webhook) that takes longer than this did not complete in time. */
const IN_TIME_MS = 10_000;
/** Of the capacity, what must still complete in time while twice it is offered. */
const GOODPUT_SHARE = 0.9;
/** A refusal must come at once: that is what makes it cheaper than an answer. */
const BUSY_ANSWER_P99_MS = 50;
/** Every second's answer p99 within this again, within `RECOVERY_LIMIT_SECONDS` of the overload's end. */
const ANSWER_P99_MS = 200;
const RECOVERY_LIMIT_SECONDS = 10;

export function overloadPhases(soak: SoakOptions): Phase[] {
  return [
    { rate: soak.rate, seconds: soak.warmUpSeconds },
    { rate: 2 * soak.rate, seconds: OVERLOAD_SECONDS },
    { rate: soak.rate, seconds: soak.seconds - soak.warmUpSeconds - OVERLOAD_SECONDS },
  ];
}

/** The payments started while twice the capacity was offered (`t0`: when the load started). */
export function overloadGoodputWindow(soak: SoakOptions, t0: number): GoodputWindow {
  const from = t0 + soak.warmUpSeconds * 1000;
  return { from, to: from + OVERLOAD_SECONDS * 1000, limitMs: IN_TIME_MS };
}

export interface OverloadFigures {
  capacity: number;
  /** Seconds since the load started. */
  overloadFrom: number;
  overloadTo: number;
  /** Payments started in the overload that completed within `inTimeSeconds`, per second of it. */
  goodputPerSecond: number;
  inTimeSeconds: number;
  /** Payments whose create was refused as busy, whole run. */
  refusedPayments: number;
  /** 503 answers, whole run, and how fast they came. */
  busyAnswers: number;
  busyP99Ms: number;
  busyMaxMs: number;
  /** The slowest answer that was not a refusal, and how many took over 2 s. */
  acceptedMaxMs: number;
  acceptedOverLimit: number;
  /** From the overload's end, seconds until every later second's answer p99 was within 200 ms; null: never. */
  recoverySeconds: number | null;
}

export function overloadFigures(soak: SoakOptions, log: SoakLog, timeline: TimelineSecond[]): OverloadFigures {
  const overloadFrom = soak.warmUpSeconds;
  const overloadTo = overloadFrom + OVERLOAD_SECONDS;
  const busy = percentiles(log.busyLatencies);
  return {
    capacity: soak.rate,
    overloadFrom,
    overloadTo,
    goodputPerSecond: log.completedInTime / OVERLOAD_SECONDS,
    inTimeSeconds: IN_TIME_MS / 1000,
    refusedPayments: log.refused,
    busyAnswers: busy.count,
    busyP99Ms: busy.p99Ms,
    busyMaxMs: busy.maxMs,
    acceptedMaxMs: log.acceptedMaxMs,
    acceptedOverLimit: log.acceptedOverLimit,
    recoverySeconds: recoverySeconds(timeline.slice(overloadTo, soak.seconds)),
  };
}

/** How many of the seconds after the overload passed before every later one kept its p99 within the limit. */
function recoverySeconds(after: TimelineSecond[]): number | null {
  if (after.length === 0) return null;
  let lastSlow = -1;
  after.forEach((second, index) => {
    if (second.answerP99Ms > ANSWER_P99_MS) lastSlow = index;
  });
  return lastSlow === after.length - 1 ? null : lastSlow + 1;
}

export function overloadTargets(figures: OverloadFigures): TargetResult[] {
  return [
    check(
      `payments/s completed within ${figures.inTimeSeconds} s while ${2 * figures.capacity}/s were offered (90 % of ${figures.capacity}/s)`,
      '>=',
      GOODPUT_SHARE * figures.capacity,
      figures.goodputPerSecond,
      '/s',
    ),
    check('refusals (503) answered: p99', '<=', BUSY_ANSWER_P99_MS, figures.busyP99Ms, 'ms'),
    check(`accepted requests over ${ACCEPTED_LIMIT_MS / 1000} s`, '<=', 0, figures.acceptedOverLimit, 'count'),
    figures.recoverySeconds === null
      ? check(
          'seconds after the overload until every p99 is within 200 ms',
          '<=',
          RECOVERY_LIMIT_SECONDS,
          0,
          's',
          false,
          'never within the run',
        )
      : check(
          'seconds after the overload until every p99 is within 200 ms',
          '<=',
          RECOVERY_LIMIT_SECONDS,
          figures.recoverySeconds,
          's',
        ),
  ];
}
