import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import type { UserRole } from '../db/schema.ts';
import { systemClock } from '../shared/clock.ts';
import { createUser, UserError } from '../users/user-service.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printJson } from './output.ts';

const USAGE =
  'usage: lipira users create (--merchant ID --role owner|developer|viewer | --operator) --email EMAIL [--password-stdin] [--json]';
const MERCHANT_ROLES: readonly UserRole[] = ['owner', 'developer', 'viewer'];

export async function usersCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'create') throw new UsageError(USAGE);
  return create(parseArgs(rest, ['merchant', 'email', 'role'], ['operator', 'password-stdin', 'json']), config);
}

async function create(args: ParsedArgs, config: Config): Promise<number> {
  noMorePositionals(args, 0);
  const operator = args.options.has('operator');
  const merchantId = stringOption(args, 'merchant') ?? null;
  const role = stringOption(args, 'role');
  if (operator && (merchantId !== null || role !== undefined))
    throw new UsageError('--operator takes neither --merchant nor --role');
  if (!operator && merchantId === null) throw new UsageError(USAGE);
  if (!operator && !MERCHANT_ROLES.includes(role as UserRole))
    throw new UsageError('--role must be owner, developer or viewer');
  const email = requiredOption(args, 'email');
  // Read from stdin, never the command line: arguments are visible to every user of the machine.
  const password = args.options.has('password-stdin') ? await passwordFromStdin() : undefined;
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const { user, link } = await createUser(
      database.db,
      config,
      {
        merchantId,
        email,
        role: operator ? 'operator' : (role as UserRole),
        password,
      },
      systemClock.now(),
    );
    if (args.options.has('json')) {
      printJson({
        id: user.id,
        merchant_id: user.merchant_id,
        email: user.email,
        role: user.role,
        set_password_link: link,
      });
    } else {
      print(
        `Created ${user.role} ${user.id} <${user.email}>${user.merchant_id ? ` for merchant ${user.merchant_id}` : ''}.`,
      );
      if (link) print(`Set-password link (emailed; works once, for 24 hours):\n  ${link}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof UserError) throw new UsageError(error.message);
    throw error;
  } finally {
    await database.close();
  }
}

/** The first line of standard input, without its line ending. */
async function passwordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.replace(/\r?\n[\s\S]*$/, '');
  if (password === '') throw new UsageError('--password-stdin read an empty password');
  return password;
}
