// CPU time from /proc (Linux): this process's main thread (the server's event loop, or the
// node-postgres driver in a baseline), its other threads (autocannon's worker, GC, libuv), the
// PostgreSQL server's processes (when it runs on this machine), everything else on the machine,
// and one other process's total (a service the bench started).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../src/db/pool.ts';
import { round1 } from './common.ts';

export interface CpuSample {
  at: number;
  mainThread: number;
  process: number;
  postgres: Map<number, number>;
  machineBusy: number;
}

function statFields(file: string): string[] | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    // Fields after "pid (comm)": state is field 3, ppid 4, utime 14, stime 15.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const cpuTicks = (fields: string[] | undefined) => (fields ? Number(fields[11]) + Number(fields[12]) : 0);

export function cpuSample(postmasterPid: number | undefined): CpuSample {
  const postgres = new Map<number, number>();
  if (postmasterPid !== undefined) {
    postgres.set(postmasterPid, cpuTicks(statFields(`/proc/${postmasterPid}/stat`)));
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = statFields(`/proc/${entry}/stat`);
      if (fields && Number(fields[1]) === postmasterPid) postgres.set(Number(entry), cpuTicks(fields));
    }
  }
  let machineBusy = 0;
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    machineBusy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + (cpu[7] ?? 0);
  } catch {
    machineBusy = Number.NaN;
  }
  return { at: performance.now(), mainThread: cpuTicks(statFields(`/proc/self/task/${process.pid}/stat`)), process: cpuTicks(statFields('/proc/self/stat')), postgres, machineBusy };
}

/** Percent of one core over the interval (the machine has os.cpus().length of them); USER_HZ is 100. */
export function cpuSplit(before: CpuSample, after: CpuSample) {
  const seconds = (after.at - before.at) / 1000;
  const percent = (ticks: number) => round1(ticks / seconds);
  let postgres = 0;
  for (const [pid, ticks] of after.postgres) postgres += ticks - (before.postgres.get(pid) ?? 0);
  const ours = after.process - before.process + postgres;
  return {
    unit: `percent of one core (${os.cpus().length} cores)`,
    nodeMainThread: percent(after.mainThread - before.mainThread),
    nodeOtherThreads: percent(after.process - before.process - (after.mainThread - before.mainThread)),
    postgres: after.postgres.size > 0 ? percent(postgres) : null,
    otherProcesses: Number.isNaN(after.machineBusy) ? null : percent(Math.max(0, after.machineBusy - before.machineBusy - ours)),
  };
}

/** The PostgreSQL server's postmaster, when it runs on this machine and its data directory is readable. */
export async function findPostmaster(db: Db): Promise<number | undefined> {
  try {
    const { rows } = await db.query<{ data_directory: string }>('show data_directory');
    const pid = Number(fs.readFileSync(path.join(rows[0].data_directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && fs.existsSync(`/proc/${pid}/stat`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used, in ms (USER_HZ 100: 10 ms steps); NaN when unreadable. */
export function processCpuMs(pid: number): number {
  const fields = statFields(`/proc/${pid}/stat`);
  return fields ? cpuTicks(fields) * 10 : Number.NaN;
}
