import { parseFeePercent, type Config } from '../config.ts';
import {
  createMerchant,
  findMerchant,
  listKeys,
  listMerchants,
  updateMerchantSettings,
  type MerchantSettings,
} from '../merchants/merchant-service.ts';
import { isHttpUrl } from '../shared/urls.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printError, printJson } from './output.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import { systemClock } from '../shared/clock.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function merchantCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'create':
      return create(parseArgs(rest, ['name', 'email', 'webhook-url'], ['json']), config);
    case 'list':
      return list(parseArgs(rest, [], ['json']), config);
    case 'update':
      return update(parseArgs(rest, ['webhook-url', 'receipts', 'fee-percent']), config);
    default:
      throw new UsageError('usage: lipira merchant create|list|update …');
  }
}

async function create(args: ParsedArgs, config: Config): Promise<number> {
  noMorePositionals(args, 0);
  const name = requiredOption(args, 'name').trim();
  const email = requiredOption(args, 'email').trim();
  if (!EMAIL.test(email)) throw new UsageError(`--email must be an email address (got "${email}")`);
  const webhookUrl = webhookUrlOption(args) ?? null;
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const merchant = await createMerchant(
      database.db,
      {
        name,
        email,
        webhookUrl,
        feeBasisPoints: config.defaultFeeBasisPoints,
      },
      systemClock.now(),
    );
    if (args.options.has('json')) {
      printJson(merchant);
    } else {
      print(`Created merchant ${merchant.id} (${merchant.name} <${merchant.email}>).`);
      print('Keep these now: the secret keys are stored only as hashes and cannot be shown again.');
      print(`  test secret key:  ${merchant.test_secret_key}`);
      print(`  live secret key:  ${merchant.live_secret_key}`);
      print(`  test public key:  ${merchant.test_public_key}`);
      print(`  live public key:  ${merchant.live_public_key}`);
      print(`  webhook secret:   ${merchant.webhook_secret}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

async function list(args: ParsedArgs, config: Config): Promise<number> {
  noMorePositionals(args, 0);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const merchants = await listMerchants(database.db);
    const rows = await Promise.all(
      merchants.map(async (merchant) => {
        const keys = await listKeys(database.db, merchant.id);
        const publicKey = (mode: string) => keys.find((k) => k.kind === 'public' && k.mode === mode)?.visible ?? null;
        return {
          id: merchant.id,
          name: merchant.name,
          email: merchant.email,
          webhook_url: merchant.webhook_url,
          receipts: merchant.receipts_enabled === 1,
          fee_percent: merchant.fee_bps / 100,
          test_public_key: publicKey('test'),
          live_public_key: publicKey('live'),
          created_at: new Date(merchant.created_at).toISOString(),
        };
      }),
    );
    if (args.options.has('json')) {
      printJson(rows);
    } else if (rows.length === 0) {
      print('No merchants yet: lipira merchant create --name NAME --email EMAIL');
    } else {
      for (const row of rows) {
        print(
          `${row.id}  ${row.name} <${row.email}>  fee ${row.fee_percent}%  receipts ${row.receipts ? 'on' : 'off'}  webhook ${row.webhook_url ?? '-'}`,
        );
      }
    }
    return 0;
  } finally {
    await database.close();
  }
}

async function update(args: ParsedArgs, config: Config): Promise<number> {
  const [id] = args.positionals;
  if (!id)
    throw new UsageError('usage: lipira merchant update ID [--webhook-url URL] [--receipts on|off] [--fee-percent N]');
  noMorePositionals(args, 1);
  const settings: MerchantSettings = {};
  const webhookUrl = webhookUrlOption(args);
  if (webhookUrl !== undefined) settings.webhookUrl = webhookUrl;
  const receipts = stringOption(args, 'receipts');
  if (receipts !== undefined) {
    if (receipts !== 'on' && receipts !== 'off')
      throw new UsageError(`--receipts must be on or off (got "${receipts}")`);
    settings.receiptsEnabled = receipts === 'on';
  }
  const fee = stringOption(args, 'fee-percent');
  if (fee !== undefined) {
    const basisPoints = parseFeePercent(fee);
    if (basisPoints === null)
      throw new UsageError(`--fee-percent must be a percentage from 0 to 100 with at most 2 decimals (got "${fee}")`);
    settings.feeBasisPoints = basisPoints;
  }
  if (Object.keys(settings).length === 0)
    throw new UsageError('nothing to update: give --webhook-url, --receipts or --fee-percent');
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    if (!(await findMerchant(database.db, id))) {
      printError(`no merchant with id "${id}"`);
      return 1;
    }
    await updateMerchantSettings(database.db, id, settings, systemClock.now());
    print(`Updated merchant ${id}.`);
    return 0;
  } finally {
    await database.close();
  }
}

/** `--webhook-url URL` sets it, `--webhook-url ""` removes it. */
function webhookUrlOption(args: ParsedArgs): string | null | undefined {
  const value = stringOption(args, 'webhook-url');
  if (value === undefined) return undefined;
  if (value.trim() === '') return null;
  if (!isHttpUrl(value)) throw new UsageError(`--webhook-url must be an absolute http(s) URL (got "${value}")`);
  return value;
}
