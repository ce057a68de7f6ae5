// The load generators: wrk (fixed duration, one thread; throughput and the CPU window) and hey
// (closed loop, every request's latency kept: honest p50/p99 — wrk corrects its latencies for
// coordinated omission, which is right for open-loop questions but not the one asked here).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Target {
  method: 'GET' | 'POST';
  /** Full URL. */
  url: string;
  headers: Record<string, string>;
  /** Path of a file holding the request body (POST). */
  bodyFile?: string;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Responses with a status of 400 or more. */
  errorsStatus: number;
  /** Connect, read, write and timeout errors. */
  errorsSocket: number;
  /** wrk's latencies (corrected for coordinated omission), for reference only. */
  p50Ms: number;
  p99Ms: number;
}

export interface HeyResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  errors: number;
}

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const luaString = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** A wrk script for the target; `done` prints the summary as one JSON line. */
export function writeWrkScript(dir: string, name: string, target: Target): string {
  const lines = [`wrk.method = ${luaString(target.method)}`];
  for (const [k, v] of Object.entries(target.headers)) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (target.bodyFile) {
    lines.push(`local f = assert(io.open(${luaString(target.bodyFile)}, "rb"))`, 'wrk.body = f:read("*a")', 'f:close()');
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format("BENCH_JSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"status\\":%d,\\"socket\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d}\\n",',
    '    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))',
    'end',
  );
  const path = join(dir, `${name}.lua`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export async function runWrk(script: string, url: string, connections: number, seconds: number): Promise<WrkResult> {
  const { code, stdout, stderr } = await run('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, url]);
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${stdout}\n${stderr}`);
  const r = JSON.parse(line.slice('BENCH_JSON '.length)) as {
    requests: number;
    duration_us: number;
    status: number;
    socket: number;
    p50_us: number;
    p99_us: number;
  };
  const secs = r.duration_us / 1e6;
  return {
    requests: r.requests,
    seconds: secs,
    rps: r.requests / secs,
    errorsStatus: r.status,
    errorsSocket: r.socket,
    p50Ms: r.p50_us / 1000,
    p99Ms: r.p99_us / 1000,
  };
}

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export async function runHey(target: Target, connections: number, seconds: number): Promise<HeyResult> {
  // -o csv: every request's time (hey prints them to 0.1 ms), so the percentiles are computed here
  // from all of them rather than read from a summary that leaves out ranks it has too few samples for.
  const args = ['-z', `${seconds}s`, '-c', String(connections), '-m', target.method, '-t', '10', '-o', 'csv'];
  for (const [k, v] of Object.entries(target.headers)) {
    if (k.toLowerCase() === 'content-type') args.push('-T', v);
    else args.push('-H', `${k}: ${v}`);
  }
  if (target.bodyFile) args.push('-D', target.bodyFile);
  args.push(target.url);
  const { code, stdout, stderr } = await run('hey', args);
  if (code !== 0) throw new Error(`hey failed (${code}): ${stdout.slice(0, 2000)}\n${stderr}`);
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let end = 0;
  for (const line of stdout.split('\n')) {
    // response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset
    const cols = line.split(',');
    if (cols.length < 8 || !/^[0-9]/.test(line)) continue;
    const time = Number(cols[0]);
    const status = cols[6] as string;
    times.push(time);
    statuses[status] = (statuses[status] ?? 0) + 1;
    end = Math.max(end, Number(cols[7]) + time);
  }
  times.sort((a, b) => a - b);
  // hey's csv lists only completed requests; errors (timeouts, resets) show as status 0 or are absent.
  const errors = statuses['0'] ?? 0;
  return {
    requests: times.length,
    rps: times.length / Math.max(end, seconds),
    p50Ms: quantile(times, 0.5) * 1000,
    p99Ms: quantile(times, 0.99) * 1000,
    statuses,
    errors,
  };
}
