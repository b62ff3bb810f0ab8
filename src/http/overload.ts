import underPressure from '@fastify/under-pressure';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from '../shared/errors.ts';
import type { App } from './app-type.ts';
import { sendError } from './error-reply.ts';
import type { InFlight } from './in-flight.ts';
import { watchLoop, type LoopSample } from './loop-watch.ts';
import { NewWorkShedding } from './new-work-shedding.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Served however busy the gateway is: the request finishes money already moving (an
     * operator's callback, a one-time code, a card's return) or tells an operator how the
     * process is (the health probes, `/metrics`). Everything else waits its turn when shed.
     */
    servedWhenOverloaded?: boolean;
    /**
     * Starts new work (a checkout session, a direct charge, a payout, a refund): while the event
     * loop runs late, part of it is refused first (src/http/new-work-shedding.ts), before anything
     * that moves on work already started.
     */
    startsNewWork?: boolean;
  }
}

/** How often the event loop's lateness and use are read: a quarter second reacts within a few requests' time. */
const SAMPLE_INTERVAL_MS = 250;
/** New work is refused in part while a quarter second's longest lateness passes this share of the limit… */
const NEW_WORK_SHARE_OF_DELAY = 0.5;
/** …or while the loop is busy and the process on CPU for more than this share of it: the core is full… */
const NEW_WORK_MAX_BUSY = 0.9;
/** …or while more than this share of OVERLOAD_MAX_IN_FLIGHT requests are in flight. */
const NEW_WORK_SHARE_OF_IN_FLIGHT = 0.5;

/**
 * Load shedding: when the process is past one of its limits (event loop lateness or use, requests
 * in flight), new work that can wait is refused at once with `503` and `Retry-After`, in the
 * contract's envelope, before it costs a key lookup or a query. Answering everyone late instead
 * ends with every client timing out; refusing some keeps the rest within their time. Before that,
 * while the process is behind (`behindForNewWork`, or half the in-flight limit reached), new work
 * is refused in a share that grows until it keeps up, so that payments already started finish.
 * `@fastify/under-pressure` samples the event loop; which requests wait is decided here. Shed
 * requests are counted in `/metrics` as `lipira_http_requests_total{status="503"}`.
 */
export async function shedWhenOverloaded(app: App, config: Config, inFlight: InFlight): Promise<void> {
  await app.register(underPressure, { sampleInterval: SAMPLE_INTERVAL_MS });
  const maxDelayMs = config.overloadMaxEventLoopDelayMs;
  const maxUtilization = config.overloadMaxEventLoopUtilization / 100;
  const maxInFlight = config.overloadMaxInFlight;

  // The start itself (compiling every route's schema, loading modules) keeps the loop busy for a
  // while: its lateness is not load. The loop counts from the first sample wholly after it.
  let measuredFrom = Infinity;
  app.addHook('onReady', (done) => {
    measuredFrom = performance.now() + 2 * SAMPLE_INTERVAL_MS;
    done();
  });

  const overloaded = () => {
    if (maxInFlight > 0 && inFlight.running() > maxInFlight) return true;
    if (performance.now() < measuredFrom) return false;
    const { eventLoopDelay, eventLoopUtilized } = app.memoryUsage();
    return (
      (maxDelayMs > 0 && eventLoopDelay > maxDelayMs) || (maxUtilization > 0 && eventLoopUtilized > maxUtilization)
    );
  };

  const newWork = new NewWorkShedding();
  if (maxDelayMs > 0) {
    const watch = watchLoop(SAMPLE_INTERVAL_MS, (sample) => {
      if (performance.now() < measuredFrom) return;
      // Requests piling up in flight while the loop keeps time: the database is what is full.
      const waiting = maxInFlight > 0 && inFlight.running() > maxInFlight * NEW_WORK_SHARE_OF_IN_FLIGHT;
      newWork.observe(waiting || behindForNewWork(sample, maxDelayMs));
    });
    app.addHook('onClose', (_app, done) => {
      watch.stop();
      done();
    });
  }

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const { servedWhenOverloaded, startsNewWork } = request.routeOptions.config;
    if (servedWhenOverloaded) return done();
    if (!overloaded() && (!startsNewWork || newWork.admit())) return done();
    sendError(reply, new ApiError('overloaded'));
  });
}

/** Whether a sample says the process cannot take more new work than it has: its turns long, or its core full. */
export function behindForNewWork(sample: LoopSample, maxDelayMs: number): boolean {
  return (
    sample.longestLatenessMs > maxDelayMs * NEW_WORK_SHARE_OF_DELAY ||
    (sample.utilization > NEW_WORK_MAX_BUSY && sample.cpuCores > NEW_WORK_MAX_BUSY)
  );
}
