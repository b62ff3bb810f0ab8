import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { LoadGenerator } from './fuzz-load.ts';
import type { RoutePlan } from './fuzz-routes.ts';
import { changedTables, chargeIdentity, fingerprint, newRecords, type RecordTable } from './fuzz-state.ts';
import type { CheckoutPool } from './fuzz-world.ts';

/** What one route's run held, as printed and kept in the report. */
export interface RouteFigures {
  route: string;
  requests: number;
  /** Answers by status; `error` for a request that got none. */
  statuses: Record<string, number>;
  fiveHundreds: number;
  stackTraces: number;
  /** Rows (or table changes) left behind by requests that were refused. */
  rejectedWithRecord: number;
  accepted: number;
  /** Requests built to be refused by the handler after it looked (duplicates, no funds, refused instruments). */
  refusals: number;
  /** Batches in which every request was refused, and the database was checked to be exactly as before. */
  rejectedOnlyBatches: number;
  ms: number;
}

export interface RouteRun {
  figures: RouteFigures;
  /** One line per finding (capped), with the request that caused it. */
  findings: string[];
}

export interface RouteJob {
  plan: RoutePlan;
  /** The route's place in the list the load generator was given. */
  index: number;
  checkouts: CheckoutPool | null;
  runs: number;
  seed: number;
}

const BATCH = 500;
/** Of every route's runs, this share is refusals (for routes that have them). */
const REFUSAL_SHARE = 0.1;
const MAX_FINDINGS = 12;

/**
 * Has the load generator send `runs` generated requests to one route, in batches, each answer
 * judged there (fuzz-oracle.ts); around every batch, checks the database: tables the route may not
 * change stay exactly as they were, nothing changes at all when every request of the batch was
 * refused, and the only new sessions or charges are those the accepted answers name.
 */
export async function fuzzRoute(
  db: Kysely<DB>,
  load: LoadGenerator,
  { plan, index, checkouts, runs, seed }: RouteJob,
): Promise<RouteRun> {
  const started = performance.now();
  const figures: RouteFigures = {
    route: plan.key,
    requests: 0,
    statuses: {},
    fiveHundreds: 0,
    stackTraces: 0,
    rejectedWithRecord: 0,
    accepted: 0,
    refusals: 0,
    rejectedOnlyBatches: 0,
    ms: 0,
  };
  const findings: string[] = [];
  const note = (line: string) => findings.length < MAX_FINDINGS && findings.push(line);

  const refusals = plan.refusals ? Math.round(runs * REFUSAL_SHARE) : 0;
  // Refusals first, while the route's fresh checkouts are all still payable.
  const phases = [
    { refusals: true, count: refusals },
    { refusals: false, count: runs - refusals },
  ];
  let batchIndex = 0;
  for (const phase of phases) {
    for (let sent = 0; sent < phase.count; sent += BATCH, batchIndex++) {
      const batchSeed = seed + batchIndex;
      const where = `batch ${batchIndex} (seed ${batchSeed})`;
      const before = await fingerprint(db);
      // Rows written before this instant belong to earlier batches (created_at has millisecond resolution).
      await sleep(2);
      const since = Date.now();
      const outcomes = await load.run({
        route: index,
        refusals: phase.refusals,
        count: Math.min(BATCH, phase.count - sent),
        seed: batchSeed,
        checkouts,
      });
      const after = await fingerprint(db);

      const named = new Set<string>();
      let accepted = 0;
      for (const outcome of outcomes) {
        figures.statuses[outcome.status] = (figures.statuses[outcome.status] ?? 0) + 1;
        if (outcome.fiveHundred) figures.fiveHundreds++;
        if (outcome.leakedInternals) figures.stackTraces++;
        for (const problem of outcome.problems) note(`${problem}: ${where}, ${outcome.description}`);
        if (!outcome.accepted) continue;
        accepted++;
        if (phase.refusals) note(`accepted a request it had to refuse: ${where}, ${outcome.description}`);
        if (outcome.named) named.add(outcome.named);
      }
      figures.requests += outcomes.length;
      figures.accepted += accepted;
      if (phase.refusals) figures.refusals += outcomes.length;

      const changed = changedTables(before, after);
      const forbidden = changed.filter((table) => !plan.changes.includes(table));
      if (forbidden.length > 0) note(`${where} changed ${forbidden.join(', ')}, which ${plan.key} never may`);
      if (accepted === 0) {
        figures.rejectedOnlyBatches++;
        if (changed.length > 0) {
          figures.rejectedWithRecord += changed.length;
          note(`${where} refused every request yet changed ${changed.join(', ')}`);
        }
      }
      if (plan.creates) {
        const created = await newRecords(db, plan.creates.table, since);
        const unnamed = [...created].filter((identity) => !named.has(identity));
        figures.rejectedWithRecord += unnamed.length;
        if (unnamed.length > 0)
          note(
            `${where} left ${unnamed.length} ${plan.creates.table} rows no accepted answer named: ${unnamed.slice(0, 3).join(', ')}`,
          );
        const missing = await absent(
          db,
          plan.creates.table,
          [...named].filter((identity) => !created.has(identity)),
        );
        if (missing.length > 0)
          note(`${where}: accepted answers name records that do not exist: ${missing.slice(0, 3).join(', ')}`);
      }
    }
  }
  figures.ms = Math.round(performance.now() - started);
  return { figures, findings };
}

/** The identities (fuzz-state.ts) that name no row of the table: a replay names an older row, which must still exist. */
async function absent(db: Kysely<DB>, table: RecordTable, identities: string[]): Promise<string[]> {
  if (identities.length === 0) return [];
  if (table === 'checkout_sessions') {
    const rows = await db.selectFrom('checkout_sessions').select('id').where('id', 'in', identities).execute();
    const found = new Set(rows.map((row) => row.id));
    return identities.filter((identity) => !found.has(identity));
  }
  const rows = await db
    .selectFrom('charges')
    .select(['merchant_id', 'mode', 'charge_id'])
    .where(
      'charge_id',
      'in',
      identities.map((identity) => identity.split(':').slice(2).join(':')),
    )
    .execute();
  const found = new Set(rows.map((row) => chargeIdentity(row.merchant_id, row.mode, row.charge_id)));
  return identities.filter((identity) => !found.has(identity));
}
