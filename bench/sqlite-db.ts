import BetterSqlite3 from 'better-sqlite3';
import type { BenchDb } from './bench-db.ts';
import { DELIVERY_EVENTS, type DeliveryEvent } from './delivery-events.ts';
import type { DeliveryRow, EventRow, NewSession, SessionRow } from './rows.ts';

/** Room for the index pages a bulk load touches at random, which SQLite's default 2 MB cache would keep re-reading. */
const CACHE_KIB = 512 * 1024;

/** `insert into table (a, b) values (?, ?)`, the columns in the order of the rows' keys. */
function insertSql(table: string, columns: string[], suffix = ''): string {
  return `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) ${suffix}`;
}

/**
 * A second connection to the gateway's SQLite file. WAL mode (set by the gateway) lets it write
 * while the gateway holds its own connection open; the busy timeout covers the moments the
 * gateway's workers write.
 */
export function openSqliteBenchDb(file: string): BenchDb {
  const db = new BetterSqlite3(file);
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  // Checkpointing after every batch of a bulk load costs a quarter of its time; afterBulkLoad does it once.
  db.pragma('wal_autocheckpoint = 0');

  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  /** One statement for rows that all have the same keys, bound by position: the quickest way in. */
  const inserter = (table: string, sample: object, suffix = '') => {
    const statement = prepared(insertSql(table, Object.keys(sample), suffix));
    return (row: object) => statement.run(Object.values(row)).changes;
  };

  const insertSessions = db.transaction((batch: NewSession[]) => {
    const insertSession = inserter('checkout_sessions', batch[0]!.session, 'on conflict do nothing');
    const insertLog = inserter('logs', batch[0]!.log);
    return batch.filter(({ session, log }) => {
      if (insertSession(session) === 0) return true;
      insertLog(log);
      return false;
    });
  });
  const queueEvents = db.transaction((events: EventRow[], deliveries: DeliveryRow[]) => {
    const insertEvent = inserter('events', events[0]!);
    const insertDelivery = inserter('webhook_deliveries', deliveries[0]!);
    for (const event of events) insertEvent(event);
    for (const delivery of deliveries) insertDelivery(delivery);
  });
  const count = (sql: string) => (prepared(sql).get() as { n: number }).n;

  return {
    countSessions: async () => count('select count(*) as n from checkout_sessions'),
    findSession: async (merchantId, txRef) =>
      prepared("select * from checkout_sessions where merchant_id = ? and mode = 'test' and tx_ref = ?").get(
        merchantId,
        txRef,
      ) as SessionRow | undefined,
    // BEGIN IMMEDIATE: the search index's triggers make the batch read (FTS5's own tables) before
    // it writes, and a transaction that has read cannot wait for the gateway's writer to finish:
    // it fails at once with "database is locked". Taking the write lock first lets it wait.
    insertSessions: async (batch) => insertSessions.immediate(batch),
    // The load left every page it wrote in the WAL; a gateway that had grown to this size
    // gradually would have checkpointed all along, so copy them into the database file now.
    afterBulkLoad: async () => void db.pragma('wal_checkpoint(TRUNCATE)'),
    markThirdOfSessionsPaid: async () => {
      db.prepare(
        "update checkout_sessions set status = 'success', completed_at = created_at where status = 'pending' and cast(reference as integer) % 3 = 0",
      ).run();
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    pendingCharges: async () => count("select count(*) as n from charges where status = 'pending'"),
    queueEvents: async (events, deliveries) => queueEvents(events, deliveries),
    deliveryEvents: async (merchantId) => prepared(`${DELIVERY_EVENTS} ?`).all(merchantId) as DeliveryEvent[],
    close: async () => void db.close(),
  };
}
