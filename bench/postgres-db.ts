import pg from 'pg';
import type { BenchDb } from './bench-db.ts';
import { DELIVERY_EVENTS, type DeliveryEvent } from './delivery-events.ts';
import type { SessionRow } from './rows.ts';

/** The gateway reads int8 (money, epoch ms) as numbers; so must we, to compare its rows with ours. */
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => (oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)),
};

/**
 * `insert into table (a, b) select a, b from json_populate_recordset(…)`: a whole batch in one
 * parameter, typed by the table itself, so this code needs no list of column types.
 */
function insertJsonSql(table: string, columns: string[], suffix = ''): string {
  const list = columns.join(', ');
  return `insert into ${table} (${list}) select ${list} from json_populate_recordset(null::${table}, $1::json) ${suffix}`;
}

export async function openPostgresBenchDb(url: string): Promise<BenchDb> {
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  // Bench rows need not survive a crash of the server, and waiting for each flush would only slow the load.
  await client.query('set synchronous_commit = off');

  const inTransaction = async <T>(work: () => Promise<T>): Promise<T> => {
    await client.query('begin');
    try {
      const result = await work();
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  };
  const insertRows = (table: string, rows: object[], suffix = '') =>
    rows.length === 0
      ? Promise.resolve({ rows: [] })
      : client.query<{ id: string }>(insertJsonSql(table, Object.keys(rows[0]!), suffix), [JSON.stringify(rows)]);
  const count = async (sql: string) => Number((await client.query<{ n: number }>(sql)).rows[0]!.n);

  return {
    countSessions: () => count('select count(*) as n from checkout_sessions'),
    findSession: async (merchantId, txRef) =>
      (
        await client.query<SessionRow>(
          "select * from checkout_sessions where merchant_id = $1 and mode = 'test' and tx_ref = $2",
          [merchantId, txRef],
        )
      ).rows[0],
    insertSessions: (batch) =>
      inTransaction(async () => {
        const inserted = await insertRows(
          'checkout_sessions',
          batch.map((s) => s.session),
          'on conflict do nothing returning id',
        );
        const ids = new Set(inserted.rows.map((row) => row.id));
        await insertRows(
          'logs',
          batch.filter((s) => ids.has(s.session.id)).map((s) => s.log),
        );
        return batch.filter((s) => !ids.has(s.session.id));
      }),
    // A server that had grown to this size gradually would have vacuumed and analyzed along the
    // way; without it the planner still believes the tables hold a few thousand rows.
    afterBulkLoad: async () => void (await client.query('vacuum analyze checkout_sessions, logs')),
    markThirdOfSessionsPaid: async () => {
      await client.query(
        "update checkout_sessions set status = 'success', completed_at = created_at where status = 'pending' and cast(reference as bigint) % 3 = 0",
      );
      await client.query('vacuum analyze checkout_sessions');
    },
    pendingCharges: () => count("select count(*) as n from charges where status = 'pending'"),
    queueEvents: (events, deliveries) =>
      inTransaction(async () => {
        await insertRows('events', events);
        await insertRows('webhook_deliveries', deliveries);
      }),
    deliveryEvents: async (merchantId) =>
      (await client.query<DeliveryEvent>(`${DELIVERY_EVENTS} $1`, [merchantId])).rows,
    close: () => client.end(),
  };
}
