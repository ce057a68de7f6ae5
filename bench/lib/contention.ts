// Other work on the machine (a test suite in another shell, say) skews every number here: on two
// cores, workerd and the load generator already use most of the machine. A run measures the
// machine's busy time besides workerd and this process's own tree (Node, wrk, hey), and counts
// as contended when that background load is over a threshold; the driver then repeats the run.
import { readFileSync } from 'node:fs';

/** Busy clock ticks of the whole machine (all CPUs): everything but idle and iowait. */
export function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

/** This process's CPU ticks plus those of its reaped children (wrk and hey, once they exit). */
export function selfTreeTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  // utime(14) stime(15) cutime(16) cstime(17) → indexes 11..14 after the command.
  return (f[11] ?? 0) + (f[12] ?? 0) + (f[13] ?? 0) + (f[14] ?? 0);
}

export interface Window {
  busy: number;
  self: number;
  at: number;
}

export function openWindow(): Window {
  return { busy: machineBusyTicks(), self: selfTreeTicks(), at: performance.now() };
}

/** CPUs' worth of background load during the window, given workerd's ticks in it. */
export function backgroundCores(window: Window, workerdTicks: number, clkTck: number): number {
  const seconds = (performance.now() - window.at) / 1000;
  const other = machineBusyTicks() - window.busy - (selfTreeTicks() - window.self) - workerdTicks;
  return Math.max(0, other / clkTck / seconds);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (between runs, with no workerd of ours running) until the machine has been quiet for
 * two consecutive seconds, or `maxSeconds` passed. Returns the seconds waited.
 */
export async function waitForQuiet(thresholdCores: number, clkTck: number, maxSeconds: number): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  while ((performance.now() - started) / 1000 < maxSeconds) {
    const w = openWindow();
    await sleep(1000);
    quiet = backgroundCores(w, 0, clkTck) < thresholdCores ? quiet + 1 : 0;
    if (quiet >= 2) break;
  }
  return (performance.now() - started) / 1000;
}
