/**
 * Whether an error means the database could not be reached or could not serve us right now
 * (as opposed to a bug or a bad query): the request is answered 503 and may be retried, and a
 * worker waits and tries again. Nothing here says whether a write was committed: a COMMIT whose
 * answer was lost may have succeeded, which is why creates are idempotent.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Wrappers keep the original as `cause`; a connection to a name with several addresses fails
  // with an AggregateError of one error per address.
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth += 1) {
    if (saysUnavailable(cause) || (cause instanceof AggregateError && cause.errors.some(isDatabaseUnavailable)))
      return true;
  }
  return false;
}

function saysUnavailable(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && isUnavailableCode(code)) return true;
  return PG_CLIENT_MESSAGES.some((message) => error.message.startsWith(message));
}

/** The socket errors of a server that is down, restarting or cut off by the network. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs: 08xxx connection exceptions, 53300 too many connections, 57P01–57P03
 * the server shutting down, crashed or starting. SQLite: SQLITE_BUSY (and its extended codes)
 * once busy_timeout has passed with another process holding the write lock.
 */
function isUnavailableCode(code: string): boolean {
  return (
    SOCKET_CODES.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code) ||
    code === '53300' ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code.startsWith('SQLITE_BUSY')
  );
}

/**
 * node-postgres reports a lost connection and its own timeouts without a code, only in words:
 * the socket closed under a query, a connection attempt or a wait for a pooled client timed out
 * (`connectionTimeoutMillis`), a query got no answer (`query_timeout`), or a client already
 * known dead was used.
 */
const PG_CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout expired',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];
