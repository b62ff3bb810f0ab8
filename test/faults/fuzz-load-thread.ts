import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { FuzzClient, type FuzzRequest, type FuzzResponse } from './fuzz-http.ts';
import type { BatchJob, Outcome, ThreadSetup } from './fuzz-load.ts';
import { judge } from './fuzz-oracle.ts';
import { ROUTE_NOTES } from './fuzz-route-notes.ts';
import { planRoute, routeKey, type RunContext } from './fuzz-routes.ts';

/** The load generator's thread (see fuzz-load.ts): builds each route's plan, then runs batches as asked. */
const { world, routes, inFlight } = workerData as ThreadSetup;
const plans = routes.map((route) => planRoute(route, ROUTE_NOTES[routeKey(route.method, route.url)]));
const client = new FuzzClient(world.url, inFlight);

parentPort!.on('message', async (job: BatchJob) => {
  const plan = plans[job.route]!;
  const ctx: RunContext = { world, checkouts: job.checkouts };
  const arbitrary = job.refusals ? plan.refusals!(ctx) : plan.requests(ctx);
  const requests = fc.sample(arbitrary, { numRuns: job.count, seed: job.seed });
  const answers = await client.sendAll(requests);
  const outcomes = answers.map((answer, i): Outcome => {
    const request = requests[i]!;
    const verdict = judge(plan, request, answer, world.secrets);
    const accepted = !(answer instanceof Error) && answer.status < 400;
    return {
      status: answer instanceof Error ? 'error' : String(answer.status),
      accepted,
      fiveHundred: !(answer instanceof Error) && answer.status >= 500,
      leakedInternals: verdict.leakedInternals,
      problems: verdict.problems,
      named: accepted && plan.creates ? plan.creates.named(request, answer as FuzzResponse, ctx) : null,
      description: verdict.problems.length > 0 || (accepted && job.refusals) ? describe(request, answer) : null,
    };
  });
  parentPort!.postMessage(outcomes);
});

/** The request and its answer, short enough for a finding. */
function describe(request: FuzzRequest, answer: FuzzResponse | Error): string {
  const clip = (text: string, length: number) =>
    JSON.stringify(text.length > length ? `${text.slice(0, length)}…(${text.length} chars)` : text);
  const sent = `${request.method} ${clip(request.path, 160)} headers ${clip(JSON.stringify(request.headers), 240)} body ${clip(request.body ?? '', 240)}`;
  const got = answer instanceof Error ? `error ${answer.message}` : `${answer.status} ${clip(answer.text, 300)}`;
  return `${sent} → ${got}`;
}
