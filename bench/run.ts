// `npm run bench`: loads bare node:http, bare Fastify and the gateway with autocannon and reports
// throughput, latency and server cost side by side, so the gateway's overhead is read against baselines.
import { fileURLToPath } from 'node:url';
import { Cleanup } from './cleanup.ts';
import { startGateway } from './gateway.ts';
import { BenchUsageError, parseBenchArgs, USAGE, type BenchOptions } from './options.ts';
import { buildReport, formatReport, saveReport } from './report.ts';
import { measure, scenarios, seedSessions, type Measurement } from './scenarios.ts';
import { startServer } from './servers.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('results/', import.meta.url));

async function bench(options: BenchOptions, startedAt: Date, cleanup: Cleanup): Promise<void> {
  const baseline = (name: string, file: string) =>
    startServer({ name, args: ['--import', 'tsx', `bench/${file}`], cwd: REPO_ROOT, env: {}, readyPath: '/' }, cleanup);
  const nodeHttp = await baseline('node:http baseline', 'baseline-http.ts');
  const fastify = await baseline('fastify baseline', 'baseline-fastify.ts');
  const gateway = await startGateway(REPO_ROOT, options.db, startedAt, cleanup);

  progress(`seeding ${options.seedCount} checkout sessions`);
  await seedSessions(gateway, options.seedCount);

  const measurements: Measurement[] = [];
  for (const scenario of scenarios(nodeHttp, fastify, gateway, options.seedCount)) {
    progress(`${scenario.name} (${options.durationSeconds} s)`);
    measurements.push(await measure(scenario, options));
  }

  const report = buildReport(measurements, options, startedAt);
  process.stdout.write(formatReport(report));
  process.stdout.write(`\nSaved ${await saveReport(report, RESULTS_DIR)}\n`);
}

/** Progress goes to stderr, keeping stdout to the table. */
function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`bench: ${error.message} (${USAGE})\n`);
    return 2;
  }
  const cleanup = new Cleanup();
  // Ctrl-C must not leave servers running or a benchmark database behind.
  process.once('SIGINT', () => void cleanup.run().finally(() => process.exit(130)));
  try {
    await bench(options, new Date(), cleanup);
    return 0;
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await cleanup.run();
  }
}

process.exitCode = await main(process.argv.slice(2));
