// What the figures were measured on, and per-process CPU time and resident memory from /proc.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly ramGiB: number;
  readonly node: string;
  readonly os: string;
  readonly loadAverage: string;
}

export function machineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) cpuModel = match[1]!.trim();
  } catch {
    // not Linux
  }
  let os = `${process.platform} ${process.arch}`;
  try {
    os =
      `${readFileSync('/proc/sys/kernel/ostype', 'utf8').trim()} ` +
      `${readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim()} ${process.arch}`;
  } catch {
    // not Linux
  }
  let loadAverage = '';
  try {
    loadAverage = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    // not Linux
  }
  return {
    cpuModel,
    cores: cpus().length,
    ramGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os,
    loadAverage,
  };
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU time of a process in milliseconds (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 (state) is index 0; utime is field 14 → index 11, stime index 12.
    return ((Number(fields[11]) + Number(fields[12])) / clockTicks()) * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size of a process in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the maximum seen. */
export function rssSampler(pid: number, everyMs = 200): { stop(): number } {
  let max = rssMiB(pid);
  const timer = setInterval(() => {
    const v = rssMiB(pid);
    if (v > max || Number.isNaN(max)) max = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const v = rssMiB(pid);
      return Math.max(max, Number.isNaN(v) ? 0 : v);
    },
  };
}
