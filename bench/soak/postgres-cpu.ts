import { readdirSync, readFileSync } from 'node:fs';
import { cpuMicroseconds } from '../proc-stats.ts';

/**
 * CPU time (microseconds) so far of each PostgreSQL process on this machine that works for
 * `database`: its backends and autovacuum workers, and the server's own processes (postmaster,
 * checkpointer, WAL writer…), which serve every database. Backends of other databases are left
 * out: other runs and test suites may share the server. Empty when the server is elsewhere.
 */
export function postgresCpuByPid(database: string): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const serves = databaseOf(title);
      if (serves === null || serves === database) found.set(pid, cpuMicroseconds(pid));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return found;
}

/**
 * The database a process title names: a backend's `postgres: 15/main: user db 127.0.0.1(5432) idle`
 * or an autovacuum worker's `postgres: 15/main: autovacuum worker db`; null for the server's own.
 */
function databaseOf(title: string): string | null {
  const words = title.replace(/^postgres: (?:[^:]+: )?/, '').split(' ');
  if (words[0] === 'autovacuum' && words[1] === 'worker') return words[2] ?? null;
  return words.length >= 3 && CLIENT_ADDRESS.test(words[2]!) ? words[1]! : null;
}

const CLIENT_ADDRESS = /^(?:[\d.:a-f]+\(\d+\)|\[local\])$/i;

/**
 * CPU the processes used between two readings: each process alive at the second counts from the
 * first (from zero if it started since); one that ended in between is lost, which the gateway's
 * pooled connections never do mid-run.
 */
export function cpuBetween(start: Map<number, number>, end: Map<number, number>): number {
  let micros = 0;
  for (const [pid, used] of end) micros += used - (start.get(pid) ?? 0);
  return micros;
}
