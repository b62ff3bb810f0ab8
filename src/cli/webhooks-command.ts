import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { findDeliveryOwner } from '../events/delivery-repository.ts';
import { DEFAULT_PER_PAGE, listDeliveries, redeliver, showDelivery } from '../webhooks/webhook-service.ts';
import { attemptView, deliverySummary } from '../webhooks/webhook-views.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printError, printJson } from './output.ts';
import { systemClock } from '../shared/clock.ts';

const USAGE =
  'usage: lipira webhooks list --merchant ID [--mode test|live] [--status pending|delivered|failed] [--tx-ref REF] [--charge-id ID] [--page N] [--json] | show DELIVERY_ID [--json] | redeliver DELIVERY_ID';

export async function webhooksCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'list')
    return list(parseArgs(rest, ['merchant', 'mode', 'status', 'tx-ref', 'charge-id', 'page'], ['json']), config);
  if (action === 'show' || action === 'redeliver') return one(action, parseArgs(rest, [], ['json']), config);
  throw new UsageError(USAGE);
}

async function list(args: ParsedArgs, config: Config): Promise<number> {
  noMorePositionals(args, 0);
  const merchantId = requiredOption(args, 'merchant');
  const mode = stringOption(args, 'mode') ?? 'test';
  if (mode !== 'test' && mode !== 'live') throw new UsageError(`--mode must be test or live (got "${mode}")`);
  const status = stringOption(args, 'status');
  if (status !== undefined && !['pending', 'delivered', 'failed'].includes(status))
    throw new UsageError(`--status must be pending, delivered or failed (got "${status}")`);
  const pageText = stringOption(args, 'page') ?? '1';
  if (!/^[1-9]\d{0,6}$/.test(pageText))
    throw new UsageError(`--page must be a positive whole number (got "${pageText}")`);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const filter = { status, txRef: stringOption(args, 'tx-ref'), chargeId: stringOption(args, 'charge-id') };
    const page = await listDeliveries(database.db, { merchantId, mode }, filter, Number(pageText), DEFAULT_PER_PAGE);
    const rows = page.rows.map(deliverySummary);
    if (args.options.has('json')) printJson({ page: page.page, total: page.total, deliveries: rows });
    else if (rows.length === 0) print('No webhook deliveries.');
    else
      for (const row of rows)
        print(
          `${row.id}  ${row.created_at}  ${row.event_type}  ${row.status}  tries ${row.attempt_count}  ${row.tx_ref ?? row.charge_id ?? ''}  ${row.last_error ?? ''}`.trimEnd(),
        );
    return 0;
  } finally {
    await database.close();
  }
}

async function one(action: 'show' | 'redeliver', args: ParsedArgs, config: Config): Promise<number> {
  const [id] = args.positionals;
  if (!id) throw new UsageError(USAGE);
  noMorePositionals(args, 1);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const owner: Principal | null = await findDeliveryOwner(database.db, id);
    if (!owner) {
      printError(`no webhook delivery with id "${id}"`);
      return 1;
    }
    if (action === 'redeliver') {
      await redeliver(database.db, owner, id, systemClock.now());
      print(`Delivery ${id} is queued and will be sent again by the running gateway.`);
      return 0;
    }
    const { delivery, attempts } = await showDelivery(database.db, owner, id);
    const view = {
      ...deliverySummary(delivery),
      payload: JSON.parse(delivery.payload) as unknown,
      attempts: attempts.map(attemptView),
    };
    if (args.options.has('json')) printJson(view);
    else {
      print(`${view.id}  ${view.event_type}  ${view.status}  → ${view.url}`);
      for (const attempt of view.attempts)
        print(
          `  ${attempt.attempted_at}  ${attempt.status_code ?? '-'}  ${attempt.latency_ms} ms  ${attempt.error ?? ''}`.trimEnd(),
        );
    }
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      printError(String(error.body));
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}
