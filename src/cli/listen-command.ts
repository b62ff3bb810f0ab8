import type { Config } from '../config.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { ids } from '../shared/ids.ts';
import { parseArgs, stringOption, UsageError, noMorePositionals } from './args.ts';
import { settingsEnvironment } from './env-file.ts';
import { remoteGateway } from './remote-gateway.ts';
import { forwardEvent, type StreamedEvent } from './listen-forward.ts';
import { print, printError } from './output.ts';
import { followEventStream, StreamRefused } from './sse-client.ts';

const USAGE =
  'usage: lipira listen (--forward-to URL | --print-json) [--events TYPE,…] [--url GATEWAY_URL] [--api-key sec-test-…]';

/** Event ids remembered to send each event once: a resume replays a few seconds the listener may have had. */
const REMEMBERED_IDS = 10_000;

/**
 * `lipira listen`: the gateway's events on a developer's machine as they happen, over HTTP(S) to
 * the gateway's `/events/stream` (the gateway never connects to the laptop). Each is forwarded
 * as its webhook would be, signed with a secret of this session's, or printed as JSON. The
 * merchant's own webhook deliveries are neither used nor changed. Runs until Ctrl-C.
 */
export async function listenCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, ['forward-to', 'events', 'url', 'api-key'], ['print-json']);
  noMorePositionals(args, 0);
  const env = settingsEnvironment();
  const forwardTo = stringOption(args, 'forward-to');
  const printJson = args.options.has('print-json');
  if ((forwardTo === undefined) === !printJson) throw new UsageError(USAGE);
  if (forwardTo !== undefined && !/^https?:\/\/[^/]/.test(forwardTo))
    throw new UsageError(`--forward-to must be an http:// or https:// URL (got "${forwardTo}")`);
  const { url, apiKey } = remoteGateway(args, config, env);
  if (!/^sec-(test|live)-/.test(apiKey))
    throw new UsageError('a secret key is needed: --api-key sec-test-… or LIPIRA_API_KEY (in the environment or .env)');
  const types = eventTypes(stringOption(args, 'events'));

  const secret = ids.webhookSecret();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Printing JSON, stdout carries the events alone: what is said about the session goes to stderr.
  const say = printJson ? (text: string) => process.stderr.write(`${text}\n`) : print;
  say(`Ready! Your webhook signing secret is ${secret} (^C to quit)`);
  const seen = new Set<string>();
  // Forwarded one after another, in the order they happened, while the stream goes on being read.
  let forwarding = Promise.resolve();
  try {
    await followEventStream({
      url,
      apiKey,
      signal: stop.signal,
      onConnected: (again) => say(again ? `Reconnected to ${url}` : `Listening to ${url}`),
      onDropped: (reason, retryInMs) =>
        say(`Lost the stream (${reason}): reconnecting in ${(retryInMs / 1000).toFixed(retryInMs < 1000 ? 2 : 0)} s`),
      onMessage: (message) => {
        const event = JSON.parse(message.data) as StreamedEvent;
        if (seen.has(event.id) || (types && !types.has(event.type))) return;
        seen.add(event.id);
        if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
        if (printJson) print(JSON.stringify(event));
        else
          forwarding = forwarding.then(async () =>
            print(await forwardEvent(event, forwardTo!, secret, config.webhookTimeoutMs)),
          );
      },
    });
    await forwarding;
    return 0;
  } catch (error) {
    if (!(error instanceof StreamRefused)) throw error;
    printError(error.message);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `--events checkout.payment,api.refund`: the types to pass on, or null for all. */
function eventTypes(text: string | undefined): ReadonlySet<string> | null {
  if (text === undefined) return null;
  const types = text.split(',').map((type) => type.trim());
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new UsageError(`--events: unknown event type "${unknown[0]}" (known: ${EVENT_TYPES.join(', ')})`);
  return new Set(types);
}
