import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import type { Database } from '../db/database.ts';
import { findMerchant, type Principal } from '../merchants/merchant-service.ts';
import { refundPayment, refundsOf, type RefundTarget } from '../refunds/refund-service.ts';
import { refundView } from '../refunds/refund-views.ts';
import { ApiError } from '../shared/errors.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printError, printJson } from './output.ts';
import { systemClock } from '../shared/clock.ts';

const USAGE =
  'usage: lipira refunds create (--charge-id ID | --tx-ref REF) --merchant ID [--mode test|live] [--amount N] [--reason TEXT] [--json] | list --merchant ID [--mode test|live] [--charge-id ID | --tx-ref REF] [--json]';
/** The same bounds as the API's: a whole amount in major units within int32, a reason of at most 500 characters. */
const MAX_AMOUNT = 2_147_483_647;
const MAX_REASON = 500;

export async function refundsCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'create')
    return create(parseArgs(rest, ['merchant', 'mode', 'charge-id', 'tx-ref', 'amount', 'reason'], ['json']), config);
  if (action === 'list') return list(parseArgs(rest, ['merchant', 'mode', 'charge-id', 'tx-ref'], ['json']), config);
  throw new UsageError(USAGE);
}

/** Queues a refund as the API does, from the merchant's balance; the running gateway hands it to the provider. */
async function create(args: ParsedArgs, config: Config): Promise<number> {
  const owner = ownerOf(args);
  const target = targetOf(args);
  if (!target) throw new UsageError('one of --charge-id or --tx-ref is required');
  const amount = amountOf(stringOption(args, 'amount'));
  const reason = stringOption(args, 'reason');
  if (reason !== undefined && reason.length > MAX_REASON)
    throw new UsageError(`--reason must be at most ${MAX_REASON} characters`);
  return withMerchant(config, owner, async (database) => {
    const deps = { ...database, clock: systemClock, refundReturnsFee: config.refundReturnsFee };
    const view = refundView(await refundPayment(deps, owner, target, { amount, reason: reason || undefined }));
    if (args.options.has('json')) printJson(view);
    else
      print(
        `Refund ${view.refund_id} of ${view.currency} ${view.amount} for charge ${view.charge_id} is ${view.status}: ${view.pending_reason ?? 'a running gateway hands it to the provider.'}`,
      );
  });
}

async function list(args: ParsedArgs, config: Config): Promise<number> {
  const owner = ownerOf(args);
  const target = targetOf(args);
  return withMerchant(config, owner, async ({ db }) => {
    const views = (await refundsOf(db, owner, target ?? {})).map(refundView);
    if (args.options.has('json')) printJson(views);
    else if (views.length === 0) print('No refunds.');
    else
      for (const view of views)
        print(
          `${view.refund_id}  ${view.created_at}  ${view.status}  ${view.currency} ${view.amount}  ${view.charge_id}  ${view.reason ?? ''}`.trimEnd(),
        );
  });
}

function ownerOf(args: ParsedArgs): Principal {
  noMorePositionals(args, 0);
  const merchantId = requiredOption(args, 'merchant');
  const mode = stringOption(args, 'mode') ?? 'test';
  if (mode !== 'test' && mode !== 'live') throw new UsageError(`--mode must be test or live (got "${mode}")`);
  return { merchantId, mode };
}

function targetOf(args: ParsedArgs): RefundTarget | null {
  const chargeId = stringOption(args, 'charge-id');
  const txRef = stringOption(args, 'tx-ref');
  if (chargeId !== undefined && txRef !== undefined) throw new UsageError('give --charge-id or --tx-ref, not both');
  if (chargeId !== undefined) return { chargeId };
  return txRef === undefined ? null : { txRef };
}

function amountOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(text) || Number(text) > MAX_AMOUNT)
    throw new UsageError(`--amount must be a whole number from 1 to ${MAX_AMOUNT} (got "${text}")`);
  return Number(text);
}

/** Runs `work` on the database for an existing merchant; a refusal is printed as the API words it, with exit status 1. */
async function withMerchant(
  config: Config,
  owner: Principal,
  work: (database: Database) => Promise<void>,
): Promise<number> {
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    if (!(await findMerchant(database.db, owner.merchantId))) {
      printError(`no merchant with id "${owner.merchantId}"`);
      return 1;
    }
    await work(database);
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    printError(typeof error.body === 'string' ? error.body : Object.values(error.body).flat().join(' '));
    return 1;
  } finally {
    await database.close();
  }
}
