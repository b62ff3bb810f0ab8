import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import type { UserRole } from '../db/schema.ts';
import { systemClock } from '../shared/clock.ts';
import type { Database } from '../db/database.ts';
import { findMerchant } from '../merchants/merchant-service.ts';
import { disableUser, enableUser, resetPassword, resetTwoFactor } from '../users/account-resets.ts';
import { findUser, findUserByEmail, listUsers, type User } from '../users/user-repository.ts';
import { createUser, LINK_VALID_HOURS, normaliseEmail, UserError } from '../users/user-service.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printError, printJson } from './output.ts';

const USAGE =
  'usage: lipira users create (--merchant ID --role owner|developer|viewer | --operator) --email EMAIL [--password-stdin] [--json] | list [--merchant ID] [--json] | reset-password EMAIL [--json] | reset-2fa EMAIL [--json] | disable EMAIL [--json] | enable EMAIL [--json]';
const MERCHANT_ROLES: readonly UserRole[] = ['owner', 'developer', 'viewer'];

/** The command line resets anyone, and is audited as itself (no user). */
const COMMAND_LINE = { actor: null, merchantId: null };

/** What an action did, for --json (beside the user as they are now) and as sentences. */
interface UserDone {
  json: Record<string, unknown>;
  text: string[];
}

type UserAction = (database: Database, config: Config, user: User, now: number) => Promise<UserDone>;

/** What each action that names one user by address does to them, and how it is said. */
const USER_ACTIONS: Record<string, UserAction> = {
  'reset-password': async (database, config, user, now) => {
    const { link, sessionsEnded } = await resetPassword(database.db, config, COMMAND_LINE, user.id, now);
    return {
      json: { set_password_link: link, sessions_ended: sessionsEnded },
      text: [
        `Reset the password of ${describe(user)}: the old one no longer works; ${sessionsText(sessionsEnded)}.`,
        `Set-password link (emailed; works once, for ${LINK_VALID_HOURS} hours):\n  ${link}`,
      ],
    };
  },
  'reset-2fa': async (database, config, user, now) => {
    const { sessionsEnded } = await resetTwoFactor(database.db, config, COMMAND_LINE, user.id, now);
    return {
      json: { sessions_ended: sessionsEnded },
      text: [
        `Turned off two-factor sign-in of ${describe(user)}; ${sessionsText(sessionsEnded)}. They were emailed, and set it up again at their next sign-in.`,
      ],
    };
  },
  disable: async (database, _config, user, now) => {
    const { sessionsEnded } = await disableUser(database.db, user.id, now);
    return {
      json: { sessions_ended: sessionsEnded },
      text: [`Disabled ${describe(user)}: their sign-ins are refused; ${sessionsText(sessionsEnded)}.`],
    };
  },
  enable: async (database, _config, user, now) => {
    await enableUser(database.db, user.id, now);
    return { json: {}, text: [`Enabled ${describe(user)}: they may sign in again.`] };
  },
};

export async function usersCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'create')
    return create(parseArgs(rest, ['merchant', 'email', 'role'], ['operator', 'password-stdin', 'json']), config);
  if (action === 'list') return list(parseArgs(rest, ['merchant'], ['json']), config);
  if (action !== undefined && Object.hasOwn(USER_ACTIONS, action))
    return changeUser(action, USER_ACTIONS[action]!, parseArgs(rest, [], ['json']), config);
  throw new UsageError(USAGE);
}

const describe = (user: User) =>
  `${user.role} ${user.id} <${user.email}>${user.merchant_id ? ` of merchant ${user.merchant_id}` : ''}`;

const sessionsText = (ended: number) =>
  ended === 0 ? 'they had no session open' : `${ended} session${ended === 1 ? '' : 's'} ended`;

/** The JSON of a user as `list` prints it: never a password's hash or a two-factor key. */
function userJson(user: User) {
  return {
    id: user.id,
    merchant_id: user.merchant_id,
    email: user.email,
    role: user.role,
    password_set: user.password_hash !== null,
    two_factor: user.totp_secret !== null,
    disabled_at: user.disabled_at === null ? null : new Date(user.disabled_at).toISOString(),
    created_at: new Date(user.created_at).toISOString(),
  };
}

async function list(args: ParsedArgs, config: Config): Promise<number> {
  noMorePositionals(args, 0);
  const merchantId = stringOption(args, 'merchant') ?? null;
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    if (merchantId !== null && !(await findMerchant(database.db, merchantId))) {
      printError(`no merchant with id "${merchantId}"`);
      return 1;
    }
    const users = await listUsers(database.db, merchantId);
    if (args.options.has('json')) printJson(users.map(userJson));
    else if (users.length === 0)
      print(merchantId === null ? 'No users yet: lipira users create …' : `Merchant ${merchantId} has no users.`);
    else
      for (const user of users)
        print(
          [
            user.id,
            user.email,
            user.role,
            user.merchant_id ?? 'operator',
            user.password_hash === null ? 'no password' : 'password set',
            `two-factor ${user.totp_secret === null ? 'off' : 'on'}`,
            ...(user.disabled_at === null ? [] : ['disabled']),
          ].join('  '),
        );
    return 0;
  } finally {
    await database.close();
  }
}

/** One action on the user an address names: printed as a sentence, or as JSON with the user. */
async function changeUser(action: string, change: UserAction, args: ParsedArgs, config: Config): Promise<number> {
  const [email] = args.positionals;
  if (email === undefined) throw new UsageError(`usage: lipira users ${action} EMAIL [--json]`);
  noMorePositionals(args, 1);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const user = await findUserByEmail(database.db, normaliseEmail(email));
    if (!user) {
      printError(`no user with the email "${email}"`);
      return 1;
    }
    const done = await change(database, config, user, systemClock.now());
    if (args.options.has('json')) printJson({ ...userJson((await findUser(database.db, user.id))!), ...done.json });
    else for (const line of done.text) print(line);
    return 0;
  } catch (error) {
    if (error instanceof UserError) throw new UsageError(error.message);
    throw error;
  } finally {
    await database.close();
  }
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
      if (link) print(`Set-password link (emailed; works once, for ${LINK_VALID_HOURS} hours):\n  ${link}`);
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
