import type { Registry } from 'prom-client';
import type { App } from '../http/app-type.ts';
import { registerAtScrape, type Sample } from './scrape-time-metric.ts';

/** Upper bounds in seconds: a cached lookup takes a millisecond, a slow provider call seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REQUESTS = 'lipira_http_requests_total';
const DURATION = 'lipira_http_request_duration_seconds';

/** One route pattern × method × status: answered requests, their summed seconds, and how many fell in each bucket. */
interface Series {
  labels: { route: string; method: string; status: number };
  count: number;
  sum: number;
  /** Per bucket, not cumulative; the last one is above every bound (+Inf). */
  inBucket: number[];
}

/**
 * Counts every answered request and observes its latency, labelled by the route pattern (never
 * the concrete URL, whose references would make one series per transaction), method and status.
 *
 * The counts are kept here and handed to prom-client as finished series when scraped: its own
 * `inc`/`observe` validate and hash the labels of every call, which cost more per request than
 * everything else this hook does.
 */
export function trackRequests(app: App, registry: Registry): void {
  const series = new Map<string, Series>();

  // A callback hook rather than an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // Requests no route matched (404s, bad URLs) share one series, whatever path they named.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${reply.statusCode} ${request.method} ${route}`;
    let entry = series.get(key);
    if (!entry) {
      entry = {
        labels: { route, method: request.method, status: reply.statusCode },
        count: 0,
        sum: 0,
        inBucket: DURATION_BUCKETS.map(() => 0).concat(0),
      };
      series.set(key, entry);
    }
    const seconds = reply.elapsedTime / 1000;
    entry.count += 1;
    entry.sum += seconds;
    entry.inBucket[bucketOf(seconds)]! += 1;
    done();
  });

  registerAtScrape(registry, REQUESTS, 'counter', 'HTTP requests answered, by route pattern, method and status.', () =>
    [...series.values()].map((entry) => ({ labels: entry.labels, value: entry.count })),
  );
  registerAtScrape(
    registry,
    DURATION,
    'histogram',
    'Time from receiving a request to finishing its response, by route pattern, method and status.',
    () => [...series.values()].flatMap(histogramSamples),
  );
}

function bucketOf(seconds: number): number {
  let index = 0;
  while (index < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[index]!) index += 1;
  return index;
}

/** `_bucket` (cumulative, ending with +Inf), `_sum` and `_count`, as prom-client's own histogram reports them. */
function histogramSamples(entry: Series): Sample[] {
  let cumulative = 0;
  const buckets = entry.inBucket.map((count, index) => {
    cumulative += count;
    return {
      metricName: `${DURATION}_bucket`,
      labels: { ...entry.labels, le: DURATION_BUCKETS[index] ?? '+Inf' },
      value: cumulative,
    };
  });
  return [
    ...buckets,
    { metricName: `${DURATION}_sum`, labels: entry.labels, value: entry.sum },
    { metricName: `${DURATION}_count`, labels: entry.labels, value: entry.count },
  ];
}
