import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { print, printJson } from './output.ts';
import { askGateway, REMOTE_OPTIONS, remoteGateway, type Envelope, type RemoteGateway } from './remote-gateway.ts';

const USAGE = `usage: lipira test <helper> [--url URL] [--api-key KEY] [--json]
  expire TX_REF                                        a pending checkout session's time runs out now
  complete CHARGE_ID --status success|failed [--failure-code CODE]
                                                       a pending payment's customer answers
  receive CHARGE_ID --amount N                         a transfer of N arrives in a bank transfer's account
  settle                                               the merchant's test collections settle now
  retry-webhook DELIVERY_ID                            a delivery waiting for its next try is sent now`;

type Data = Record<string, unknown>;

/** How long `retry-webhook` waits to print how the try went; the gateway's worker sends it in the meantime. */
const TRY_WAIT_MS = 15_000;

/**
 * `lipira test …`: the test helpers (`POST /test-helpers/…`, test keys only) from the command
 * line, against this machine's gateway or another's; each prints what became of the record.
 */
export async function testCommand(argv: string[], config: Config): Promise<number> {
  const [helper, ...rest] = argv;
  const valued = [...REMOTE_OPTIONS, 'status', 'failure-code', 'amount'];
  const run = helper !== undefined && Object.hasOwn(HELPERS, helper) ? HELPERS[helper] : undefined;
  if (!run) throw new UsageError(USAGE);
  const args = parseArgs(rest, valued, ['json']);
  noMorePositionals(args, run.positionals);
  if (args.positionals.length < run.positionals) throw new UsageError(USAGE);
  const data = await run.call(remoteGateway(args, config), args);
  if (args.options.has('json')) printJson(data);
  else print(run.line(data));
  return 0;
}

const post = async (gateway: RemoteGateway, path: string, body?: unknown): Promise<Data> =>
  (await askGateway<Envelope<Data>>(gateway, 'POST', `/test-helpers/${path}`, body)).data;

const segment = (args: ParsedArgs) => encodeURIComponent(args.positionals[0]!);

const chargeLine = (data: Data) => `${String(data.charge_id)}  ${String(data.status)}`;

const HELPERS: Record<
  string,
  {
    positionals: number;
    call: (gateway: RemoteGateway, args: ParsedArgs) => Promise<Data>;
    line: (data: Data) => string;
  }
> = {
  expire: {
    positionals: 1,
    call: (gateway, args) => post(gateway, `checkout-sessions/${segment(args)}/expire`),
    line: (data) => `${String(data.tx_ref)}  ${String(data.status)} (expired)`,
  },
  complete: {
    positionals: 1,
    call: (gateway, args) => {
      const status = requiredOption(args, 'status');
      if (status !== 'success' && status !== 'failed')
        throw new UsageError(`--status must be success or failed (got "${status}")`);
      return post(gateway, `direct-charges/${segment(args)}/complete`, {
        status,
        failure_code: stringOption(args, 'failure-code'),
      });
    },
    line: chargeLine,
  },
  receive: {
    positionals: 1,
    call: (gateway, args) => {
      const amount = requiredOption(args, 'amount');
      if (!/^[1-9]\d{0,9}$/.test(amount)) throw new UsageError(`--amount must be whole kwacha (got "${amount}")`);
      return post(gateway, `bank-transfers/${segment(args)}/receive`, { amount: Number(amount) });
    },
    line: chargeLine,
  },
  settle: {
    positionals: 0,
    call: (gateway) => post(gateway, 'settlements/run'),
    line: (data) => `Settled ${String(data.settled_balances)} collection balance(s) into the main balance.`,
  },
  'retry-webhook': {
    positionals: 1,
    call: async (gateway, args) => {
      const due = await post(gateway, `webhooks/${segment(args)}/retry-now`);
      return (await tried(gateway, due)) ?? due;
    },
    line: (data) =>
      `${String(data.id)}  ${String(data.status)}  tries ${String(data.attempt_count)}${data.last_error ? `  ${String(data.last_error)}` : ''}`,
  },
};

/** The delivery once the worker has recorded the try `due` asked for; null if it has not within the wait. */
async function tried(gateway: RemoteGateway, due: Data): Promise<Data | null> {
  for (const deadline = Date.now() + TRY_WAIT_MS; Date.now() < deadline; await sleep(250)) {
    const { data } = await askGateway<Envelope<Data>>(gateway, 'GET', `/webhooks/deliveries/${String(due.id)}`);
    if (Number(data.attempt_count) > Number(due.attempt_count)) return data;
  }
  return null;
}
