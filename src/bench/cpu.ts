/**
 * CPU time spent by the processes a bench row measures, read from /proc (Linux): a row's
 * req/s says how fast, this says where the machine's time went (the serving process, and the
 * database server's processes beside it). Elsewhere every reading is null and the bench
 * reports none.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (100 on every Linux seen here; getconf says). */
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * A process's /proc/<pid>/stat line: its command, and the fields after it, from the third
 * (state) on; the command may hold spaces and parentheses. Null when /proc cannot tell.
 */
export function procStat(pid: number | string): { command: string; fields: string[] } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const end = stat.lastIndexOf(')');
  return { command: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
}

/** User + system time of one process, all its threads, in ms; null when /proc cannot tell. */
export function processCpuMs(pid: number): number | null {
  const stat = procStat(pid);
  return stat && ticksOf(stat.fields);
}

/**
 * User + system time of every process whose command is `command` (PostgreSQL's server and its
 * backends are all `postgres`), in ms, with what their ended children had spent: a backend that
 * ends hands its time to the server process that waits for it, so the sum only grows while the
 * server runs. Null when /proc cannot tell.
 */
export function commandCpuMs(command: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  let ms = 0;
  for (const pid of pids) {
    // Null: gone since the listing.
    const stat = procStat(pid);
    if (stat?.command === command) ms += ticksOf(stat.fields, true);
  }
  return ms;
}

/** utime + stime (fields 14 and 15), and with `children` cutime + cstime (16 and 17), in ms. */
function ticksOf(fields: readonly string[], children = false): number {
  const f = fields.map(Number);
  return ((f[11]! + f[12]! + (children ? f[13]! + f[14]! : 0)) * 1000) / TICKS_PER_S;
}

/** Cores the whole machine spent busy (not idle, not waiting on I/O) since boot, in ms (from /proc/stat); null when /proc cannot tell. */
export function machineBusyMs(): number | null {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  // cpu  user nice system idle iowait irq softirq steal …
  const f = line!.trim().split(/\s+/).slice(1).map(Number);
  const busy = f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + (f[7] ?? 0);
  return (busy * 1000) / TICKS_PER_S;
}
