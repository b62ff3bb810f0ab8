import { Counter, Histogram, type Registry } from 'prom-client';
import type { App } from '../http/server.ts';

/** Upper bounds in seconds: a cached lookup takes a millisecond, a slow provider call seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Counts every answered request and observes its latency, labelled by the route pattern (never
 * the concrete URL, whose references would make one series per transaction), method and status.
 */
export function trackRequests(app: App, registry: Registry): void {
  const labelNames = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'lipira_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'lipira_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by route pattern, method and status.',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });

  // A callback hook rather than an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // Requests no route matched (404s, bad URLs) share one series, whatever path they named.
    const labels = { route: request.routeOptions.url ?? 'unmatched', method: request.method, status: reply.statusCode };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
