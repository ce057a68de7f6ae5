// `npm run bench:filters`: what the filters of GET /scenarios and GET /scenarios/export cost at
// N = 100,000 scenarios in one account (the seed of `npm run bench`, where one row in a hundred is
// in a state, of a year and with a program no other row has: bench/lib/data.ts RARE).
//
// 1. Page cells: the service alone (the baseline has no filters), one workerd on a copy of the
//    seed, wrk -c1 for BENCH_FILTERS_DURATION seconds per cell, every cell once per rep in an order
//    rotated per rep. Per cell: requests/s, CPU ms per request of the workerd process (utime+stime
//    from /proc, as `npm run bench` measures it) and wrk's p50. A cell's ratio is its CPU per
//    request over the unfiltered page's in the same rep; the median over the reps is reported.
// 2. Exports: GET /scenarios/export of 1,000, 10,000 and N rows (JSON Lines, and CSV of N), each on
//    a fresh workerd after a warm-up export, read by Node's fetch and discarded as it arrives.
//    Wall time, the workerd process's CPU (ms per 1,000 rows) and its peak RSS over its RSS before
//    the export (sampled every 10 ms); then, on another fresh workerd with the inspector attached,
//    the Worker isolate's JavaScript heap before and at its peak during the same export. Then the same page queries run by a bare Worker that only
//    reads the rows (the D1 simulator's share, which in production is not on the Worker's CPU):
//    the export's CPU minus that is an estimate of the Worker's own.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOurs } from './lib/bundle.ts';
import { RARE } from './lib/data.ts';
import { connectInspector } from './lib/inspector.ts';
import { runWrk, writeWrkScript } from './lib/load.ts';
import { median } from './lib/report.ts';
import { ensureSeed } from './lib/seed.ts';
import { CLK_TCK, cpuTicks, freePort, startServer, type Server } from './lib/server.ts';

const OUT = 'bench/.out';
const env = process.env;
const N = Number(env.BENCH_FILTERS_N ?? 100_000);
const REPS = Number(env.BENCH_FILTERS_REPS ?? 5);
const DURATION = Number(env.BENCH_FILTERS_DURATION ?? 3);
const WARMUP = Number(env.BENCH_FILTERS_WARMUP ?? 3);
const log = (line: string) => process.stderr.write(`[bench:filters] ${line}\n`);

const STATE_ROOT = existsSync('/dev/shm') ? join('/dev/shm', `scenario-bench-filters-${process.pid}`) : join(OUT, 'filters-state');
process.on('exit', () => rmSync(STATE_ROOT, { recursive: true, force: true }));
function freshState(seedDir: string, slot: string): string {
  const dir = join(STATE_ROOT, slot);
  rmSync(dir, { recursive: true, force: true });
  cpSync(seedDir, dir, { recursive: true });
  return dir;
}

/** RSS of a process in bytes (all its threads share it). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

const ms = (ticks: number) => (ticks * 1000) / CLK_TCK;

async function main() {
  const bundle = bundleOurs(join(OUT, 'filters-ours'));
  const seedDir = join(OUT, `seed-${N}`);
  const seed = await ensureSeed(seedDir, N, log);
  const state = freshState(seedDir, 'db');
  const server = await startServer({ scriptPath: bundle.scriptPath, stateDir: state });
  const db = await server.mf.getD1Database('DB');
  // updated_since matching 1 %: the updated_at of the (N/100)th most recently updated scenario.
  const since = await db.prepare('SELECT updated_at AS t FROM scenarios ORDER BY updated_at DESC LIMIT 1 OFFSET ?').bind(N / 100 - 1).first<{ t: number }>();
  const middle = await db.prepare('SELECT id FROM scenarios ORDER BY id LIMIT 1 OFFSET ?').bind(N / 2).first<{ id: number }>();
  const sinceText = new Date(since!.t).toISOString();
  const cells: Array<[string, string]> = [
    ['unfiltered', ''],
    ['unfiltered, deep (starting_after the middle id)', `starting_after=${middle!.id}`],
    [`state_id (1 %)`, `state_id=${RARE.stateId}`],
    [`state_id (1 %), deep`, `state_id=${RARE.stateId}&starting_after=${middle!.id}`],
    [`year (1 %)`, `year=${RARE.year}`],
    [`program (1 %)`, `program=${RARE.program}`],
    [`program (1 %), deep`, `program=${RARE.program}&starting_after=${middle!.id}`],
    [`updated_since (1 %)`, `updated_since=${sinceText}`],
    [`state_id (1 %) + program=snap (0.5 %)`, `state_id=${RARE.stateId}&program=snap`],
  ];
  const auth = { Authorization: `Bearer ${seed.key}` };
  const scripts = cells.map(([, query], i) => {
    const url = `${server.url}/scenarios${query ? `?${query}` : ''}`;
    return { url, script: writeWrkScript(OUT, `filters-${i}`, { method: 'GET', url, headers: auth }) };
  });
  // Every cell answers a full page of 10 (or says why not).
  for (const [i, { url }] of scripts.entries()) {
    const res = await fetch(url, { headers: auth });
    const body = (await res.json()) as { data?: unknown[] };
    if (res.status !== 200 || body.data?.length !== 10) throw new Error(`${cells[i]![0]}: ${res.status}, ${body.data?.length} items`);
  }
  const pages = env.BENCH_FILTERS_PAGES !== '0';
  if (pages) log(`page cells: ${cells.length} × ${REPS} reps × ${DURATION} s (warm-up ${WARMUP} s each)`);
  if (pages) for (const { url, script } of scripts) await runWrk(script, url, 1, WARMUP);
  const runs = cells.map(() => [] as Array<{ cpu: number; rps: number; p50: number }>);
  for (let rep = 0; pages && rep < REPS; rep++) {
    const order = cells.map((_, i) => (i + rep) % cells.length);
    for (const i of order) {
      const before = cpuTicks(server.pid);
      const result = await runWrk(scripts[i]!.script, scripts[i]!.url, 1, DURATION);
      const ticks = cpuTicks(server.pid) - before;
      if (result.errorsStatus || result.errorsSocket) throw new Error(`${cells[i]![0]}: ${result.errorsStatus} error statuses`);
      runs[i]!.push({ cpu: ms(ticks) / result.requests, rps: result.rps, p50: result.p50Ms });
    }
    log(`rep ${rep + 1}/${REPS} done`);
  }
  const pageRows = cells.map(([name], i) => {
    const ratios = runs[i]!.map((r, rep) => r.cpu / runs[0]![rep]!.cpu);
    const m = (f: (r: { cpu: number; rps: number; p50: number }) => number) => median(runs[i]!.map(f));
    return `| ${name} | ${m((r) => r.rps).toFixed(0)} | ${m((r) => r.cpu).toFixed(2)} | ${m((r) => r.p50).toFixed(1)} | ${median(ratios).toFixed(2)} |`;
  });
  await server.dispose();

  // Exports; one of K < N rows is the K oldest (starting_after the id just past them).
  const exportRows: string[] = [];
  const exports: Array<{ label: string; rows: number; query: string }> = [
    { label: 'JSON Lines', rows: 1000, query: '' },
    { label: 'JSON Lines', rows: 10_000, query: '' },
    { label: 'JSON Lines', rows: N, query: '' },
    { label: 'CSV', rows: N, query: 'format=csv' },
    { label: `JSON Lines, program=${RARE.program} (1 %)`, rows: N / 100, query: `program=${RARE.program}` },
  ].filter((spec, i) => spec.rows <= N && (i < 2 ? spec.rows < N : true));
  for (const spec of exports) {
    const s = await startServer({ scriptPath: bundle.scriptPath, stateDir: freshState(seedDir, 'db') });
    try {
      const first = spec.rows < N && !spec.query.startsWith('program') ? await oldestBound(s, spec.rows) : undefined;
      const query = [spec.query, first === undefined ? '' : `starting_after=${first}`].filter(Boolean).join('&');
      await readExport(s, seed.key, 'starting_after=' + String((await oldestBound(s, 1000))!)); // warm-up: 1,000 rows
      const result = await measureExport(s, seed.key, query);
      const expected = spec.rows + (spec.query.startsWith('format=csv') ? 1 : 0);
      if (result.lines !== expected) throw new Error(`${spec.label} of ${spec.rows}: ${result.lines} lines`);
      const heap = await isolateHeap(bundle.scriptPath, seedDir, seed.key, query);
      exportRows.push(
        `| ${spec.label} | ${spec.rows.toLocaleString('en-US')} | ${(result.bytes / 1e6).toFixed(1)} MB | ${result.seconds.toFixed(2)} s | ` +
          `${((ms(result.ticks) / spec.rows) * 1000).toFixed(0)} ms | ${(heap.before / 1e6).toFixed(1)} / ${(heap.peak / 1e6).toFixed(1)} MB | ${(result.peakRss / 1e6).toFixed(1)} MB |`,
      );
      log(`export ${spec.label} ${spec.rows}: ${result.seconds.toFixed(2)} s`);
    } finally {
      await s.dispose();
    }
  }

  // The D1 simulator's share: the export's page statements, run by a Worker that only reads them.
  const floor = await d1Floor(seedDir, seed.accountId, N);

  const report = [
    `N = ${N.toLocaleString('en-US')} scenarios in one account; ${REPS} reps × ${DURATION} s per cell, wrk -c1; ${new Date().toISOString()}`,
    '',
    ...(pages ? ['| page of 10 | requests/s | CPU ms / request | p50 ms | CPU ÷ unfiltered |', '|---|---:|---:|---:|---:|', ...pageRows, ''] : []),
    '| export | rows | body | time | workerd CPU per 1,000 rows | isolate heap used: before / peak | workerd peak RSS over start |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...exportRows,
    '',
    `D1 simulator's share (the same ${N / 1000} page statements of 1,001 rows, read and dropped by a bare Worker): ` +
      `${((ms(floor.ticks) / N) * 1000).toFixed(0)} ms per 1,000 rows, ${floor.seconds.toFixed(2)} s, peak RSS over start ${(floor.peakRss / 1e6).toFixed(1)} MB.`,
  ].join('\n');
  writeFileSync(join(OUT, 'filters.md'), `${report}\n`);
  process.stdout.write(`${report}\n`);
}

/** The id of the (k+1)th oldest scenario: starting_after it, an export has exactly k rows. */
async function oldestBound(server: Server, k: number): Promise<number | undefined> {
  const db = await server.mf.getD1Database('DB');
  return (await db.prepare('SELECT id FROM scenarios ORDER BY id LIMIT 1 OFFSET ?').bind(k).first<{ id: number }>())?.id;
}

/**
 * The Worker isolate's JavaScript heap (what Workers' 128 MB limit counts) during the export, on
 * its own server with the inspector attached (which slows it, so times come from the run without):
 * used size after a warm-up export (workerd's inspector does not answer a request for a full GC),
 * and the most seen while the export streams
 * (sampled as fast as the inspector answers, between the isolate's tasks).
 */
async function isolateHeap(scriptPath: string, seedDir: string, key: string, query: string) {
  const inspectorPort = await freePort();
  const server = await startServer({ scriptPath, stateDir: freshState(seedDir, 'db'), inspectorPort });
  try {
    await readExport(server, key, `starting_after=${(await oldestBound(server, 1000))!}`);
    const inspector = await connectInspector(inspectorPort);
    const used = async () => (await inspector.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
    const before = await used();
    let peak = before;
    let done = false;
    const sampling = (async () => {
      while (!done) peak = Math.max(peak, await used());
    })();
    await readExport(server, key, query);
    done = true;
    await sampling;
    inspector.close();
    return { before, peak };
  } finally {
    await server.dispose();
  }
}

async function readExport(server: Server, key: string, query: string) {
  const res = await fetch(`${server.url}/scenarios/export${query ? `?${query}` : ''}`, { headers: { Authorization: `Bearer ${key}` } });
  if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 10) lines++;
  }
  return { bytes, lines };
}

async function measureExport(server: Server, key: string, query: string) {
  const rssBefore = rss(server.pid);
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(server.pid))), 10);
  const ticks = cpuTicks(server.pid);
  const started = performance.now();
  const { bytes, lines } = await readExport(server, key, query);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { bytes, lines, seconds, ticks: cpuTicks(server.pid) - ticks, peakRss: peak - rssBefore };
}

const FLOOR_WORKER = `
export default {
  async fetch(request, env) {
    const account = Number(new URL(request.url).searchParams.get('account'));
    let cursor = Number.MAX_SAFE_INTEGER, rows = 0;
    for (;;) {
      const { results } = await env.DB.prepare('select * from scenarios where account_id = ? and id < ? order by id desc limit 1001').bind(account, cursor).all();
      const page = results.slice(0, 1000);
      rows += page.length;
      if (results.length <= 1000) break;
      cursor = page[page.length - 1].id;
    }
    return new Response(String(rows));
  },
};`;

async function d1Floor(seedDir: string, accountId: number, n: number) {
  const scriptPath = join(OUT, 'filters-floor.js');
  writeFileSync(scriptPath, FLOOR_WORKER);
  const server = await startServer({ scriptPath, script: FLOOR_WORKER, stateDir: freshState(seedDir, 'db'), withRateLimits: false });
  try {
    await fetch(`${server.url}/?account=${accountId}`).then((r) => r.text()); // warm-up: the same whole read
    const rssBefore = rss(server.pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(server.pid))), 10);
    const ticks = cpuTicks(server.pid);
    const started = performance.now();
    const rows = Number(await (await fetch(`${server.url}/?account=${accountId}`)).text());
    clearInterval(sampler);
    if (rows !== n) throw new Error(`floor read ${rows} rows`);
    return { ticks: cpuTicks(server.pid) - ticks, seconds: (performance.now() - started) / 1000, peakRss: peak - rssBefore };
  } finally {
    await server.dispose();
  }
}

await main();
