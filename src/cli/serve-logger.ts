import pg from 'pg';
import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The logger `lipira serve` writes with (to stdout unless given a destination). Errors are logged
 * under `err` as pino writes them, except PostgreSQL's (see `errorForLog`).
 */
export function serveLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, serializers: { err: errorForLog } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * What of a PostgreSQL error says what went wrong without the row it went wrong on: the SQLSTATE,
 * the constraint and where it sits. Left out: `detail` ("Failing row contains (…)", "Key (token)=(…)
 * already exists": checkout tokens, customers' names and emails), `where` and `internalQuery`
 * (which can quote values), `hint`, and positions in a query.
 */
const DATABASE_ERROR_FIELDS = [
  'code',
  'severity',
  'constraint',
  'schema',
  'table',
  'column',
  'dataType',
  'routine',
] as const;

/** pino's error serializer, keeping only the fields above of a PostgreSQL error. */
function errorForLog(error: unknown): unknown {
  if (!(error instanceof pg.DatabaseError)) return pino.stdSerializers.err(error as Error);
  const fields: Record<string, unknown> = { type: 'DatabaseError', message: error.message, stack: error.stack };
  for (const field of DATABASE_ERROR_FIELDS) if (error[field] !== undefined) fields[field] = error[field];
  return fields;
}
