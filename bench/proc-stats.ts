import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** /proc/<pid>/stat counts CPU time in clock ticks, whose length the system defines (normally 1/100 s). */
const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The resolution of cpuMicroseconds. */
export const CLOCK_TICK_MICROSECONDS = 1e6 / CLOCK_TICKS_PER_SECOND;

/** User plus system CPU time the process (all its threads) has used so far, in microseconds. */
export function cpuMicroseconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2, the command name, may contain spaces: count fields from its closing parenthesis.
  // What follows starts at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`unexpected /proc/${pid}/stat format`);
  return (ticks / CLOCK_TICKS_PER_SECOND) * 1e6;
}

/** Resident set size, in MB. */
export function rssMegabytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * Clock ticks all CPUs together have spent so far; how many of them working (not idle or waiting
 * on I/O), idle while a disk read or write was pending (iowait), and taken by other guests of the
 * host (steal).
 */
export function machineCpuTicks(): { busy: number; iowait: number; steal: number; total: number } {
  // The first line of /proc/stat: "cpu  user nice system idle iowait irq softirq steal guest guest_nice";
  // guest time is already counted in user.
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, ticks) => sum + ticks, 0);
  return { busy: total - fields[3]! - fields[4]!, iowait: fields[4]!, steal: fields[7]!, total };
}
