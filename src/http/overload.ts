import underPressure from '@fastify/under-pressure';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from '../shared/errors.ts';
import type { App } from './app-type.ts';
import { sendError } from './error-reply.ts';
import type { InFlight } from './in-flight.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Served however busy the gateway is: the request finishes money already moving (an
     * operator's callback, a one-time code, a card's return) or tells an operator how the
     * process is (the health probes, `/metrics`). Everything else waits its turn when shed.
     */
    servedWhenOverloaded?: boolean;
  }
}

/** How often the event loop's lateness and use are read: a quarter second reacts within a few requests' time. */
const SAMPLE_INTERVAL_MS = 250;

/**
 * Load shedding: when the process is past one of its limits (event loop lateness or use, requests
 * in flight), new work that can wait is refused at once with `503` and `Retry-After`, in the
 * contract's envelope, before it costs a key lookup or a query. Answering everyone late instead
 * ends with every client timing out; refusing some keeps the rest within their time.
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

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (request.routeOptions.config.servedWhenOverloaded || !overloaded()) return done();
    sendError(reply, new ApiError('overloaded'));
  });
}
