// npm run bench: the service against a raw baseline Worker, under the same runtime (workerd via
// Miniflare's API, a direct socket to the Worker, no wrangler dev proxy), at N seeded scenarios.
// For each endpoint and concurrency it prints requests/s (wrk, fixed duration), p50/p99 (hey,
// closed loop) and CPU ms per request of the workerd process (utime+stime from /proc): medians of
// BENCH_REPS reps, each with a fresh server per Worker on a fresh copy of the seeded database and
// the wrk window cut into 1 s slices alternating between them; each rep covers every size back to
// back. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { bundleOurs, bundlePlain, measure, type Bundle } from './lib/bundle.ts';
import { household, prng } from './lib/data.ts';
import { runHey, runWrk, writeWrkScript, type Target, type WrkResult } from './lib/load.ts';
import { formatReport, median, type CellSummary, type Report, type RunResult } from './lib/report.ts';
import { ensureSeed, type SeedInfo } from './lib/seed.ts';
import { backgroundCores, openWindow, waitForQuiet } from './lib/contention.ts';
import { CLK_TCK, cpuTicks, startServer, type Server } from './lib/server.ts';
import { ENDPOINTS, EXPECTED_STATUS, request, targetFor, type Endpoint } from './lib/targets.ts';

const OUT = 'bench/.out';
const env = process.env;
const quick = env.BENCH_QUICK === '1';
const numberList = (text: string) => text.split(',').map((s) => Number(s.trim())).filter((n) => Number.isFinite(n) && n > 0);

export type WorkerName = 'ours' | 'base' | 'floor';

const config = {
  sizes: numberList(env.BENCH_SIZES ?? (quick ? '1000' : '1000,100000')),
  concurrency: numberList(env.BENCH_CONCURRENCY ?? '1,8'),
  endpoints: (env.BENCH_ENDPOINTS ? env.BENCH_ENDPOINTS.split(',').map((s) => s.trim()) : [...ENDPOINTS]) as Endpoint[],
  reps: Number(env.BENCH_REPS ?? (quick ? 1 : 3)),
  /** wrk seconds per run: the throughput and CPU window. */
  duration: Number(env.BENCH_DURATION ?? (quick ? 2 : 3)),
  /** hey seconds per run: the latency window. */
  heyDuration: Number(env.BENCH_HEY_DURATION ?? (quick ? 1 : 3)),
  /**
   * wrk seconds before measuring, on each fresh server: a new workerd spends its first seconds
   * compiling hot code (on background threads, counted in its CPU) and filling SQLite's page cache.
   * Measured on the reference machine (2 s windows from a fresh start): the first window cost 15–25 %
   * more CPU per request than the later ones, for both Workers; 3 s is past that.
   */
  warmup: Number(env.BENCH_WARMUP ?? (quick ? 1 : 3)),
  /**
   * A/A calibration: the baseline in both columns ("ours" is a second copy of it). Every ratio's
   * distance from 1.00 is then the bench's own noise on this machine, to read the real run against.
   */
  aa: env.BENCH_AA === '1',
  /**
   * A/B of the service against another build of itself: the folder of that build's bundle (an
   * `index.js` from `wrangler deploy --dry-run --outdir <folder>` on another commit) runs in the
   * baseline's columns, so every ratio is this working tree against that build, measured in the
   * same alternating slices. How a change's cost is measured here, where single runs drift ±15 %.
   */
  against: env.BENCH_AGAINST ?? '',
  /** Also measure the simulator floor (bench/baseline/floor.ts; wrk only). */
  floor: env.BENCH_FLOOR !== '0',
  /** Background load (CPUs' worth, besides workerd and our tree) over which a run is repeated. */
  maxBackground: Number(env.BENCH_MAX_BACKGROUND ?? 0.15),
  /** How many times a contended run is repeated (after waiting for the machine to calm down). */
  retries: Number(env.BENCH_RETRIES ?? 2),
  /** Longest wait (s) for the machine to calm down before repeating a contended run. */
  quietWait: Number(env.BENCH_QUIET_WAIT ?? 45),
};
// wrk and hey take whole seconds.
for (const k of ['duration', 'heyDuration', 'warmup'] as const) {
  if (!Number.isInteger(config[k]) || config[k] < 0) throw new Error(`BENCH_${k} must be a whole number of seconds`);
}
for (const e of config.endpoints) if (!ENDPOINTS.includes(e)) throw new Error(`unknown endpoint ${e} (one of ${ENDPOINTS.join(', ')})`);

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);


/**
 * Where the servers' copies of the database live: in memory (/dev/shm) where there is one. On
 * disk, the kernel writes a 218 MB copy back about 30 s later (dirty_expire_centisecs), in the
 * middle of a later run, always the same one of the rotation: measured here as one burst of
 * 208 MB of writes 30 s after a copy.
 */
const STATE_ROOT = env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? join('/dev/shm', `scenario-bench-${process.pid}`) : join(OUT, 'run-state'));
process.on('exit', () => rmSync(STATE_ROOT, { recursive: true, force: true }));

/** A fresh copy of the seeded database for one server (`slot` keeps live servers apart). */
function freshState(seedDir: string, slot: string): string {
  const dir = join(STATE_ROOT, slot);
  rmSync(dir, { recursive: true, force: true });
  cpSync(seedDir, dir, { recursive: true });
  return dir;
}

/** The order of the Workers in slice `i` of rep `rep`: rotated per rep, reversed every other slice (A B, B A, A B …). */
function sliceOrder(workers: WorkerName[], rep: number, i: number): WorkerName[] {
  const rotated = [...workers.slice(rep % workers.length), ...workers.slice(0, rep % workers.length)];
  return i % 2 ? rotated.reverse() : rotated;
}

interface Live {
  worker: WorkerName;
  server: Server;
  target: Target;
  script: string;
  slices: WrkResult[];
  ticks: number;
}

/**
 * One rep of a cell: a fresh server per Worker, all started before any is measured, then the wrk
 * window cut into 1 s slices that alternate between them (A B B A A B …), then hey on each in turn.
 * On this machine CPU per request drifts by ±15 % from one second to the next (the host's other
 * guests; fresh processes 10 s apart differ as much), so Workers measured minutes or even seconds
 * apart see different machines; alternating slices puts that drift on all of them alike.
 * A/A with the baseline in both columns (BENCH_AA=1), save at N=100,000, 5 reps, CPU ratio at
 * c=1 / c=8: consecutive runs gave 1.11 / 1.02; alternating slices (paired ratios) 1.02 / 0.98.
 */
async function measureRep(
  workers: WorkerName[],
  bundles: Record<WorkerName, Bundle>,
  size: SizeContext,
  endpoint: Endpoint,
  connections: number,
  rep: number,
): Promise<RunResult[]> {
  const live: Live[] = [];
  try {
    for (const worker of workers) {
      const server = await startServer({ scriptPath: bundles[worker].scriptPath, stateDir: freshState(size.seedDir, worker) });
      const target = targetFor(endpoint, server.url, size.seed, size.bodies);
      live.push({ worker, server, target, script: writeWrkScript(OUT, `${endpoint}-${size.n}-${worker}`, target), slices: [], ticks: 0 });
      const first = await request(target);
      const text = await first.text();
      if (first.status !== EXPECTED_STATUS[endpoint]) throw new Error(`${worker} ${endpoint}: status ${first.status}: ${text.slice(0, 500)}`);
    }
    const byName = new Map(live.map((l) => [l.worker, l]));
    const allTicks = () => live.reduce((sum, l) => sum + cpuTicks(l.server.pid), 0);
    if (config.warmup > 0) for (const l of live) await runWrk(l.script, l.target.url, connections, config.warmup);
    let background = 0;
    for (let i = 0; i < config.duration; i++) {
      for (const worker of sliceOrder(workers, rep, i)) {
        const l = byName.get(worker) as Live;
        const window = openWindow();
        const everyone = allTicks();
        const before = cpuTicks(l.server.pid);
        l.slices.push(await runWrk(l.script, l.target.url, connections, 1));
        l.ticks += cpuTicks(l.server.pid) - before;
        background = Math.max(background, backgroundCores(window, allTicks() - everyone, CLK_TCK));
      }
    }
    const results: RunResult[] = [];
    for (const worker of sliceOrder(workers, rep, 0)) {
      const l = byName.get(worker) as Live;
      const wrk = combine(l.slices);
      const result: RunResult = {
        worker,
        rep,
        wrk,
        cpuTicks: l.ticks,
        cpuMsPerRequest: (l.ticks * 1000) / CLK_TCK / Math.max(1, wrk.requests),
        background,
        attempts: 1,
      };
      let bad = wrk.errorsStatus + wrk.errorsSocket;
      if (worker !== 'floor') {
        const window = openWindow();
        const everyone = allTicks();
        const before = cpuTicks(l.server.pid);
        const hey = await runHey(l.target, connections, config.heyDuration);
        const afterHey = cpuTicks(l.server.pid);
        result.background = Math.max(result.background, backgroundCores(window, allTicks() - everyone, CLK_TCK));
        result.hey = hey;
        result.heyCpuMsPerRequest = ((afterHey - before) * 1000) / CLK_TCK / Math.max(1, hey.requests);
        bad += hey.errors + hey.requests - (hey.statuses[String(EXPECTED_STATUS[endpoint])] ?? 0);
      }
      if (bad > 0) log(`WARNING ${worker} ${endpoint} c=${connections}: ${bad} failed requests (wrk status ${wrk.errorsStatus}, socket ${wrk.errorsSocket}; hey ${JSON.stringify(result.hey?.statuses ?? {})}, errors ${result.hey?.errors ?? 0})`);
      results.push(result);
    }
    return results;
  } finally {
    for (const l of live) await l.server.dispose();
  }
}

/** The slices of one Worker's wrk window as one: totals, and wrk's (reference-only) latencies as the slices' medians. */
function combine(slices: WrkResult[]): WrkResult {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  return {
    requests,
    seconds,
    rps: requests / seconds,
    errorsStatus: slices.reduce((sum, s) => sum + s.errorsStatus, 0),
    errorsSocket: slices.reduce((sum, s) => sum + s.errorsSocket, 0),
    p50Ms: median(slices.map((s) => s.p50Ms)),
    p99Ms: median(slices.map((s) => s.p99Ms)),
  };
}

// ---------------------------------------------------------------------------------------------
// Parity: the two Workers must give the same answers (bodies and headers), or the comparison
// means nothing. Each side runs every endpoint once on its own fresh copy of the database.

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function normalise(value: Json, tokens: Set<string>): Json {
  if (Array.isArray(value)) return value.map((v) => normalise(v, tokens));
  if (value !== null && typeof value === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'chart_img' && typeof v === 'string') {
        out[k] = v.replace(/\?.*$/, '?<signed>').replace(/\/scenarios\/\d{15}\//, '/scenarios/<token>/').replace(/^http:\/\/127\.0\.0\.1:\d+/, '<origin>');
      }
      else if (k === 'request_id') out[k] = '<request id>';
      else out[k] = normalise(v, tokens);
    }
    return out;
  }
  if (typeof value === 'string' && tokens.has(value)) return '<new token>';
  if (typeof value === 'string') return value.replace(/^http:\/\/127\.0\.0\.1:\d+/, '<origin>');
  if (typeof value === 'number' && tokens.has(String(value))) return '<new token>';
  return value;
}

async function snapshot(bundle: Bundle, seedDir: string, seed: SeedInfo, bodies: { save: string; create: string }) {
  const server = await startServer({ scriptPath: bundle.scriptPath, stateDir: freshState(seedDir, 'parity') });
  try {
    const out: Record<string, { status: number; headers: Record<string, string>; body: Json }> = {};
    for (const endpoint of ENDPOINTS) {
      const res = await request(targetFor(endpoint, server.url, seed, bodies));
      const body = (await res.json()) as Json;
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      const tokens = new Set<string>();
      if (endpoint === 'create' && body && typeof body === 'object' && !Array.isArray(body)) {
        const token = /\/scenarios\/(\d{15})$/.exec(headers.location ?? '')?.[1];
        if (token) tokens.add(token);
      }
      for (const k of ['x-request-id', 'content-length']) delete headers[k];
      if (headers.location) headers.location = headers.location.replace(/\d{15}$/, '<new token>').replace(/^http:\/\/127\.0\.0\.1:\d+/, '<origin>');
      const normalised = normalise(body, tokens);
      if (endpoint === 'create') {
        // created_at is the time of the request.
        const s = (normalised as { data?: { scenario?: { created_at?: Json } } }).data?.scenario;
        if (s) s.created_at = '<now>';
      }
      out[endpoint] = { status: res.status, headers, body: normalised };
    }
    return out;
  } finally {
    await server.dispose();
  }
}

function diff(a: Json, b: Json, path: string, out: string[]): void {
  if (out.length > 20) return;
  if (JSON.stringify(a) === JSON.stringify(b)) {
    // Same content; also the same key order (JSON.stringify compares it).
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    let found = false;
    for (const k of keys) {
      if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) {
        found = true;
        diff(a[k] ?? null, b[k] ?? null, `${path}.${k}`, out);
      }
    }
    if (!found) out.push(`${path}: same members, different key order`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => diff(v, b[i] ?? null, `${path}[${i}]`, out));
    return;
  }
  out.push(`${path}: ours ${JSON.stringify(a)?.slice(0, 120)} vs base ${JSON.stringify(b)?.slice(0, 120)}`);
}

async function parity(bundles: Record<'ours' | 'base', Bundle>, seedDir: string, seed: SeedInfo, bodies: { save: string; create: string }) {
  const ours = await snapshot(bundles.ours, seedDir, seed, bodies);
  const base = await snapshot(bundles.base, seedDir, seed, bodies);
  const problems: string[] = [];
  for (const endpoint of ENDPOINTS) {
    const o = ours[endpoint];
    const b = base[endpoint];
    if (!o || !b) continue;
    if (o.status !== EXPECTED_STATUS[endpoint]) problems.push(`${endpoint}: ours answered ${o.status}`);
    if (o.status !== b.status) problems.push(`${endpoint}: status ours ${o.status} vs base ${b.status}`);
    const d: string[] = [];
    diff(o.body, b.body, 'body', d);
    diff(o.headers as Json, b.headers as Json, 'headers', d);
    problems.push(...d.map((line) => `${endpoint}: ${line}`));
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------


const spread = (xs: number[]) => (xs.length > 1 ? (Math.max(...xs) - Math.min(...xs)) / median(xs) : 0);

function summarise(runs: RunResult[]): CellSummary['ours'] {
  return {
    rps: median(runs.map((r) => r.wrk.rps)),
    rpsSpread: spread(runs.map((r) => r.wrk.rps)),
    cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)),
    cpuSpread: spread(runs.map((r) => r.cpuMsPerRequest)),
    p50Ms: median(runs.map((r) => r.hey?.p50Ms ?? NaN)),
    p99Ms: median(runs.map((r) => r.hey?.p99Ms ?? NaN)),
    heyRps: median(runs.map((r) => r.hey?.rps ?? NaN)),
    heyCpuMsPerRequest: median(runs.map((r) => r.heyCpuMsPerRequest ?? NaN)),
    wrkP50Ms: median(runs.map((r) => r.wrk.p50Ms)),
    requests: runs.reduce((sum, r) => sum + r.wrk.requests, 0),
    runs,
  };
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const workerd = spawnSync('node_modules/.bin/workerd', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const wrk = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  return {
    nproc: Number(spawnSync('nproc', [], { encoding: 'utf8' }).stdout.trim()),
    cpuModel: model,
    clkTck: CLK_TCK,
    node: process.version,
    workerd,
    wrk: `${wrk.stdout}${wrk.stderr}`.split('\n')[0]?.trim() ?? '',
    kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(),
  };
}

interface SizeContext {
  n: number;
  seedDir: string;
  seed: SeedInfo;
  bodies: { save: string; create: string };
  problems: string[];
  cells: CellSummary[];
}

function sizeReport({ n, seed, problems, cells }: SizeContext): Report['sizes'][number] {
  return { n, seed: { seconds: seed.seconds, bytes: seed.bytes, viewToken: seed.viewToken, deepCursor: seed.deepCursor }, parity: problems, cells };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  mkdirSync(OUT, { recursive: true });
  log(`config ${JSON.stringify(config)}`);
  const cellRuns = config.sizes.length * config.endpoints.length * config.concurrency.length * config.reps;
  const seconds = cellRuns * (2 * (config.warmup + config.duration + config.heyDuration + 0.7) + (config.floor ? config.warmup + config.duration + 0.7 : 0));
  log(`${cellRuns * (config.floor ? 3 : 2)} runs planned, about ${Math.ceil(seconds / 60)} min of load plus seeding`);

  log('bundling the service (wrangler deploy --dry-run --minify) and the baseline (esbuild --minify)');
  if (config.aa && config.against) throw new Error('BENCH_AA and BENCH_AGAINST exclude each other');
  const base = config.against ? measure(config.against, 'index.js') : await bundlePlain('bench/baseline/worker.ts', join(OUT, 'base'));
  if (config.aa) log('A/A calibration: the baseline runs in both columns');
  if (config.against) log(`A/B: the service's bundle in ${config.against} runs in the baseline's columns`);
  const bundles: Record<WorkerName, Bundle> = {
    ours: config.aa ? base : bundleOurs(join(OUT, 'ours')),
    base,
    floor: await bundlePlain('bench/baseline/floor.ts', join(OUT, 'floor')),
  };

  const rand = prng(7);
  const bodiesDir = join(OUT, 'bodies');
  mkdirSync(bodiesDir, { recursive: true });
  const createBody = join(bodiesDir, 'create.json');
  writeFileSync(createBody, JSON.stringify({ scenarioData: household(rand) }));
  const saveHousehold = household(rand);

  const report: Report = {
    startedAt: startedAt.toISOString(),
    finishedAt: '',
    command: `${Object.entries(env).filter(([k]) => k.startsWith('BENCH_')).map(([k, v]) => `${k}=${v} `).join('')}npm run bench`,
    config,
    machine: machine(),
    bundles: Object.fromEntries(Object.entries(bundles).map(([k, b]) => [k, { minifiedBytes: b.minifiedBytes, gzipBytes: b.gzipBytes, modules: b.modules }])),
    sizes: [],
  };

  // Seed, bodies and parity per size first; then every rep of a cell measures every size back to
  // back, so the p50 comparison across sizes is not skewed by drift over the minutes between them.
  const sizes: SizeContext[] = [];
  for (const n of config.sizes) {
    const seedDir = join(OUT, `seed-${n}`);
    const seed = await ensureSeed(seedDir, n, log);
    const saveBody = join(bodiesDir, `save-${n}.json`);
    writeFileSync(saveBody, JSON.stringify({ token: seed.saveToken, scenarioData: saveHousehold }));
    const bodies = { save: saveBody, create: createBody };
    const problems = await parity(bundles, seedDir, seed, bodies);
    log(problems.length === 0 ? `N=${n}: parity OK (same statuses, bodies and headers)` : `N=${n}: PARITY PROBLEMS:\n  ${problems.join('\n  ')}`);
    sizes.push({ n, seedDir, seed, bodies, problems, cells: [] });
  }

  const workers: WorkerName[] = config.floor ? ['ours', 'base', 'floor'] : ['ours', 'base'];
  for (const endpoint of config.endpoints) {
    for (const c of config.concurrency) {
      const runs = new Map<number, RunResult[]>(sizes.map((size) => [size.n, []]));
      for (let rep = 0; rep < config.reps; rep++) {
        // Alternate the order of sizes, so drift over the minutes falls on both alike.
        for (const size of rep % 2 ? [...sizes].reverse() : sizes) {
          const { n } = size;
          let results = await measureRep(workers, bundles, size, endpoint, c, rep);
          const contended = () => Math.max(...results.map((r) => r.background));
          for (let attempt = 2; contended() > config.maxBackground && attempt <= config.retries + 1; attempt++) {
            log(`N=${n} ${endpoint} c=${c}: ${contended().toFixed(2)} CPUs of other load on the machine; waiting for quiet, then repeating`);
            const waited = await waitForQuiet(config.maxBackground, CLK_TCK, config.quietWait);
            if (waited >= config.quietWait) log(`the machine stayed busy for ${config.quietWait} s; measuring anyway`);
            results = await measureRep(workers, bundles, size, endpoint, c, rep);
            for (const r of results) r.attempts = attempt;
          }
          if (contended() > config.maxBackground) log(`N=${n} ${endpoint} c=${c}: accepted with ${contended().toFixed(2)} CPUs of other load`);
          for (const r of results) {
            runs.get(n)?.push(r);
            log(
              `N=${n} ${endpoint} c=${c} rep ${rep + 1}/${config.reps} ${r.worker}: ${r.wrk.rps.toFixed(0)} req/s, ` +
                `${r.cpuMsPerRequest.toFixed(3)} CPU ms/req` +
                (r.hey ? `, hey p50 ${r.hey.p50Ms.toFixed(1)} p99 ${r.hey.p99Ms.toFixed(1)} ms` : ''),
            );
          }
        }
      }
      for (const size of sizes) {
        const sizeRuns = runs.get(size.n) ?? [];
        size.cells.push({
          endpoint,
          concurrency: c,
          ours: summarise(sizeRuns.filter((r) => r.worker === 'ours')),
          base: summarise(sizeRuns.filter((r) => r.worker === 'base')),
          ...(config.floor ? { floor: summarise(sizeRuns.filter((r) => r.worker === 'floor')) } : {}),
        });
      }
      // Partial results survive an interrupted run.
      report.sizes = sizes.map(sizeReport);
      writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
    }
  }
  report.sizes = sizes.map(sizeReport);
  report.finishedAt = new Date().toISOString();
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const markdown = formatReport(report);
  writeFileSync(join(OUT, 'results.md'), markdown);
  process.stdout.write(markdown);
  log(`wrote ${OUT}/results.json and ${OUT}/results.md`);
}

await main();
