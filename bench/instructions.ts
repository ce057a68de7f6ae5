// npm run bench:instructions — machine instructions per request, counted, not timed: the service
// and the raw baseline (or another build of the service) under Valgrind's callgrind, with V8 in
// single-threaded mode so the JIT compiles at much the same points on every run. Runs of the same
// bundle agree to about 1 % (and its JavaScript modules' shares, BENCH_INSTR_BY_CODE=1, to a few
// hundred instructions); timed runs on this machine spread ±8 % per rep (bench/README.md), too
// much to see a change of 1–2 %. It counts work, not time: cache misses and branch mispredictions
// are not in it, and the timed bench (`npm run bench`) stays the measure of the targets.
//
// Linux with valgrind only (`apt install valgrind`). About 40 s per endpoint and Worker.
//
//   npm run bench:instructions
//   BENCH_INSTR_ENDPOINTS=save BENCH_AGAINST=/tmp/previous npm run bench:instructions
//   BENCH_INSTR_BY_CODE=1 BENCH_INSTR_ENDPOINTS=save npm run bench:instructions   # and where they go
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleOurs, bundlePlain, measure, type Bundle } from './lib/bundle.ts';
import { byCode, PERF_MAP_FLAGS, topRows, type ByCode } from './lib/by-code.ts';
import { household, prng } from './lib/data.ts';
import { callgrindChild, callgrindWorkerd, valgrindPresent } from './lib/callgrind.ts';
import { ensureSeed, type SeedInfo } from './lib/seed.ts';
import { startServer } from './lib/server.ts';
import { ENDPOINTS, EXPECTED_STATUS, request, targetFor, type BodyFiles, type Endpoint } from './lib/targets.ts';

const OUT = resolve('bench/.out');
const env = process.env;
const endpoints = (env.BENCH_INSTR_ENDPOINTS ?? ENDPOINTS.join(',')).split(',').map((s) => s.trim()) as Endpoint[];
for (const e of endpoints) if (!ENDPOINTS.includes(e)) throw new Error(`unknown endpoint ${e} (one of ${ENDPOINTS.join(', ')})`);
/** Requests before counting starts (JIT and SQLite's cache settle), and requests counted. */
const warmup = Number(env.BENCH_INSTR_WARMUP ?? 1000);
const counted = Number(env.BENCH_INSTR_REQUESTS ?? 300);
/** Also charge the instructions to JavaScript modules and functions (bench/lib/by-code.ts). */
const withByCode = env.BENCH_INSTR_BY_CODE === '1';
const N = 1000;

/** Instructions per request of one Worker on one endpoint (the whole workerd process: the Worker, the D1 simulator, the rate limiter). */
async function count(bundle: Bundle, endpoint: Endpoint, seed: SeedInfo, bodies: BodyFiles, dir: string, label: string): Promise<{ perRequest: number; byCode?: ByCode }> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const state = join(dir, 'state');
  cpSync(join(OUT, `seed-${N}`), state, { recursive: true });
  process.env.MINIFLARE_WORKERD_PATH = callgrindWorkerd(dir);
  // One thread for V8: concurrent compilation and GC otherwise make every process take its own
  // path (the same bundle counted 7.3 to 8.6 M instructions a save, run to run).
  process.env.MINIFLARE_WORKERD_V8_FLAGS = withByCode ? `--single-threaded ${PERF_MAP_FLAGS}` : '--single-threaded';
  const server = await startServer({ scriptPath: bundle.scriptPath, stateDir: state, findProcess: false });
  try {
    const target = targetFor(endpoint, server.url, seed, bodies);
    const send = () => request(target);
    for (let i = 0; i < warmup; i++) {
      const res = await send();
      await res.arrayBuffer();
      if (res.status !== EXPECTED_STATUS[endpoint]) throw new Error(`${endpoint}: status ${res.status} during warm-up`);
    }
    const pid = callgrindChild();
    execFileSync('callgrind_control', ['--zero', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    for (let i = 0; i < counted; i++) await (await send()).arrayBuffer();
    execFileSync('callgrind_control', ['--dump=counted', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
    let total = 0;
    const dumps = readdirSync(dir).filter((f) => f.startsWith(`callgrind.${pid}.`));
    for (const file of dumps) {
      const summary = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
      if (summary) total += Number(summary[1]);
    }
    if (total === 0) throw new Error('callgrind wrote no counts');
    const dump = dumps.find((f) => statSync(join(dir, f)).size > 0);
    if (!withByCode || !dump) return { perRequest: total / counted };
    try {
      return { perRequest: total / counted, byCode: byCode(join(dir, dump), pid, counted, bundle.scriptPath, label) };
    } finally {
      rmSync(`/tmp/perf-${pid}.map`, { force: true });
    }
  } finally {
    await server.dispose();
    delete process.env.MINIFLARE_WORKERD_PATH;
    delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
  }
}

async function main(): Promise<void> {
  if (!valgrindPresent()) {
    console.error('bench:instructions needs valgrind and callgrind_control on PATH (Linux: apt install valgrind).');
    process.exit(1);
  }
  mkdirSync(OUT, { recursive: true });
  const against = env.BENCH_AGAINST;
  const ours = bundleOurs(join(OUT, 'ours'));
  const base = against ? measure(against, 'index.js') : await bundlePlain('bench/baseline/worker.ts', join(OUT, 'base'));
  const seed = await ensureSeed(join(OUT, `seed-${N}`), N, (line) => process.stderr.write(`[instructions] ${line}\n`));
  const rand = prng(7);
  const bodies = { create: join(OUT, 'bodies', 'instructions-create.json'), save: join(OUT, 'bodies', 'instructions-save.json') };
  mkdirSync(join(OUT, 'bodies'), { recursive: true });
  writeFileSync(bodies.create, JSON.stringify({ scenarioData: household(rand) }));
  writeFileSync(bodies.save, JSON.stringify({ token: seed.saveToken, scenarioData: household(rand) }));
  const baseName = against ? `build in ${against}` : 'raw baseline';
  const lines = [
    `# Instructions per request — ours against the ${baseName}`,
    '',
    `Callgrind, V8 --single-threaded, N = ${N.toLocaleString('en-US')}, ${counted} requests counted after ${warmup} (whole workerd process).`,
    '',
    '| endpoint | ours | other | ratio |',
    '|---|---:|---:|---:|',
  ];
  const detail: string[] = [];
  for (const endpoint of endpoints) {
    const a = await count(ours, endpoint, seed, bodies, join(OUT, 'instructions', 'ours'), 'ours');
    const b = await count(base, endpoint, seed, bodies, join(OUT, 'instructions', 'other'), against ? 'other build' : 'bench/baseline/worker.ts');
    const line = `| ${endpoint} | ${(a.perRequest / 1e6).toFixed(3)} M | ${(b.perRequest / 1e6).toFixed(3)} M | ${(a.perRequest / b.perRequest).toFixed(3)} |`;
    process.stderr.write(`[instructions] ${line}\n`);
    lines.push(line);
    for (const [name, result] of [['ours', a], [baseName, b]] as const) {
      if (!result.byCode) continue;
      detail.push(
        '',
        `## ${endpoint}, ${name}: JavaScript, by module and function`,
        '',
        'Instructions per request charged to each function: its own and its inline-cache lookups (bench/lib/by-code.ts).',
        '',
        '| module | instructions |',
        '|---|---:|',
        ...topRows(result.byCode.modules, 15),
        '',
        '| function | instructions |',
        '|---|---:|',
        ...topRows(result.byCode.functions, 25),
      );
    }
  }
  lines.push(...detail);
  const text = `${lines.join('\n')}\n`;
  writeFileSync(join(OUT, 'instructions.md'), text);
  process.stdout.write(text);
}

await main();
