import { parseArgs } from 'node:util';

export type DbKind = 'sqlite' | 'postgres';

export interface BenchOptions {
  quick: boolean;
  db: DbKind;
  durationSeconds: number;
  seedCount: number;
  connections: number;
}

export const USAGE = 'usage: npm run bench -- [--quick] [--db sqlite|postgres] [--duration SECONDS]';

/** A bad command line: reported on one line with exit status 2. */
export class BenchUsageError extends Error {}

export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values } = parseFlags(argv);
  const quick = values.quick ?? false;
  return {
    quick,
    db: parseDb(values.db ?? 'sqlite'),
    durationSeconds: values.duration === undefined ? (quick ? 3 : 10) : parseDuration(values.duration),
    seedCount: quick ? 500 : 2000,
    connections: 50,
  };
}

function parseFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { quick: { type: 'boolean' }, db: { type: 'string' }, duration: { type: 'string' } },
    });
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseDb(raw: string): DbKind {
  if (raw === 'sqlite' || raw === 'postgres') return raw;
  throw new BenchUsageError(`--db must be sqlite or postgres (got "${raw}")`);
}

function parseDuration(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new BenchUsageError(`--duration must be a whole number of seconds, at least 1 (got "${raw}")`);
  return Number(raw);
}
