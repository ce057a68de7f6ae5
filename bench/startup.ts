// `npm run bench:startup`: the cold-start cost of the bundle `wrangler deploy` uploads, beside a
// trivial Worker's (bench/baseline/trivial.ts), so that what every Worker pays cancels out.
//
// 1. Node: each run is a fresh Node process (the project's pinned Node, the V8 of workerd's
//    generation) that imports the bundle as an ES module and times (a) the import: parsing,
//    compiling and running the global scope, what a new isolate does before it takes a request;
//    (b) the first request (GET /me without a key: 401 before any query; the D1 binding is a
//    stand-in that only opens a session) and (c) a second one, warm.
// 2. workerd: each run starts a fresh Miniflare instance (one workerd process) serving the bundle
//    on a direct socket, with the bindings `npm run bench` gives it, and times (a) instance ready:
//    `new Miniflare()` until `mf.ready` (workerd starts, compiles the Worker and runs its global
//    scope), (b) the first GET /me and (c) a second one, from this process over loopback.
// 3. workerd, bare: each run is a fresh `workerd test` process (the workerd binary wrangler runs)
//    whose test handler imports the bundle and returns: workerd compiles the bundle and runs its
//    global scope as it does for a new isolate in production. Over the trivial Worker's run, that
//    is the global scope in the runtime itself, without Miniflare's own start around it.
// 4. The first real request: each run starts a fresh Miniflare instance over a seeded D1 and sends
//    the request a client makes first (an authenticated GET /me with a valid key; a create with a
//    body), then the same again: the first's extra over the warm one, against the platform Worker
//    (bench/baseline/platform.ts: a trivial Worker making the same platform calls, the rate
//    limiter, a SHA-256 digest and one D1 batch, so local D1's and the limiter's own first-call
//    costs cancel). The whole cold request is the global scope in workerd (3.) + this extra.
// Cloudflare starts an isolate while the TLS handshake is under way, so the global scope is partly
// hidden from the caller; what the first request does beyond a warm one is not. The figure to
// keep small is global scope + the first request's extra, each as the service's minus the trivial
// Worker's. Runs alternate between the two Workers; medians over BENCH_STARTUP_RUNS (default 9).
//
// BENCH_AGAINST=<folder> (an `index.js` from `wrangler deploy --dry-run --minify --outdir <folder>` on
// another commit) adds that build as a column, measured in the same alternating runs: before/after.
// BENCH_STARTUP_PROFILE=1 also writes a V8 CPU profile of the Node probe (import + two requests)
// on an unminified bundle, and prints where its time went by module and by function.
// BENCH_STARTUP_INSTRUCTIONS=1 also counts the instructions of the Node probe and of the bare
// workerd run under valgrind's callgrind (Node's V8 single-threaded, so compiling and GC are
// counted too; workerd's background threads are counted as well; median of 3 runs, which agree to
// about 1 %): the import alone, and the import with the first request; and the first real request
// of (4.), its second and a third, warm, in a Miniflare instance whose workerd runs under callgrind, V8
// single-threaded so that lazy compiling is counted where it happens (one instance per cell).
// BENCH_STARTUP_V8_FLAGS adds V8 flags to those counted instances (e.g. `--min-semi-space-size=16`:
// no scavenge in the first requests, which separates the garbage collector's share).
// BENCH_STARTUP_BY_CODE=1 adds where the service's first real requests' instructions go, by
// JavaScript module and function (bench/lib/by-code.ts). Timings on this
// shared machine move by ±20 % from one minute to the next; counts do not, so compare cuts by them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { bundleOurs, bundlePlain, measure, type Bundle } from './lib/bundle.ts';
import { firstRequestCount, firstRequestRun, KINDS, type FirstSample, type Kind } from './lib/first-request.ts';
import { valgrindPresent } from './lib/callgrind.ts';
import { household, prng } from './lib/data.ts';
import { topRows } from './lib/by-code.ts';
import { ensureSeed } from './lib/seed.ts';
import { benchWorker, compatibility, freePort, runtimeOptions } from './lib/server.ts';

/** The workerd binary Miniflare runs (its `workerd` dependency's default export is the binary's path). */
const workerdBinary = (createRequire(createRequire(import.meta.url).resolve('miniflare'))('workerd') as { default: string }).default;
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 9);
const PROFILE = process.env.BENCH_STARTUP_PROFILE === '1';
const INSTRUCTIONS = process.env.BENCH_STARTUP_INSTRUCTIONS === '1';
const BY_CODE = process.env.BENCH_STARTUP_BY_CODE === '1';
const OUT = resolve('bench/.out/startup');
const log = (line: string) => process.stderr.write(`[startup] ${line}\n`);

const PROBE = `
const url = process.argv[2];
const t0 = performance.now();
const worker = (await import(url)).default;
const t1 = performance.now();
if (process.argv[3] === '--import-only') process.exit(0);
// Every request opens a D1 session first; a refused one never uses it.
const env = { DB: { withSession: () => ({ getBookmark: () => null }) } };
const ctx = { waitUntil() {}, passThroughOnException() {} };
const first = await worker.fetch(new Request('http://startup.test/me'), env, ctx);
await first.arrayBuffer();
const t2 = performance.now();
const second = await worker.fetch(new Request('http://startup.test/me'), env, ctx);
await second.arrayBuffer();
const t3 = performance.now();
if (first.status !== 401 || second.status !== 401) throw new Error('expected 401, got ' + first.status + ' and ' + second.status);
console.log(JSON.stringify({ globalScope: t1 - t0, firstRequest: t2 - t1, warmRequest: t3 - t2 }));
`;

type Name = 'trivial' | 'against' | 'ours';
type FirstName = 'platform' | 'against' | 'ours';
const AGAINST = process.env.BENCH_AGAINST;
const NAMES: Name[] = AGAINST ? ['trivial', 'against', 'ours'] : ['trivial', 'ours'];

interface Sample {
  globalScope: number;
  firstRequest: number;
  warmRequest: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

mkdirSync(OUT, { recursive: true });
log('bundling the service (wrangler deploy --dry-run --minify) and the trivial Worker');
const bundles: Partial<Record<Name, Bundle>> & Record<'ours' | 'trivial' | 'platform', Bundle> = {
  ours: bundleOurs(join(OUT, 'ours')),
  trivial: await bundlePlain('bench/baseline/trivial.ts', join(OUT, 'trivial')),
  platform: await bundlePlain('bench/baseline/platform.ts', join(OUT, 'platform')),
  ...(AGAINST ? { against: measure(resolve(AGAINST), 'index.js') } : {}),
};
const probePath = join(OUT, 'probe.mjs');
writeFileSync(probePath, PROBE);
/** `.mjs`: Node then compiles it as a module at once, instead of first guessing its format. */
function asMjs(name: string, bundle: Bundle): string {
  const path = join(OUT, `${name}.mjs`);
  copyFileSync(bundle.scriptPath, path);
  return path;
}
const nodeModules = Object.fromEntries(NAMES.map((name) => [name, asMjs(name, bundles[name] as Bundle)])) as Record<Name, string>;

/**
 * A folder `workerd test` runs: the bundle as worker.mjs beside a test handler that imports it and
 * sends it `requests` GET /me (the D1 stand-in of the Node probe), under wrangler.toml's
 * compatibility. Returns the config's path.
 */
function workerdProbe(name: Name, requests: number): string {
  const dir = join(OUT, `workerd-${name}-${requests}`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(nodeModules[name], join(dir, 'worker.mjs'));
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import worker from './worker.mjs';
export default {
  async test() {
    const env = { DB: { withSession: () => ({ getBookmark: () => null }) } };
    const ctx = { waitUntil() {}, passThroughOnException() {} };
    for (let i = 0; i < ${requests}; i++) {
      const response = await worker.fetch(new Request('http://startup.test/me'), env, ctx);
      await response.arrayBuffer();
      if (response.status !== 401) throw new Error('expected 401, got ' + response.status);
    }
  },
};
`,
  );
  const { compatibilityDate, compatibilityFlags } = compatibility();
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "startup", worker = .worker)]);
const worker :Workerd.Worker = (
  modules = [(name = "probe.mjs", esModule = embed "probe.mjs"), (name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "${compatibilityDate}",
  compatibilityFlags = [${compatibilityFlags.map((flag) => JSON.stringify(flag)).join(', ')}],
);
`,
  );
  return join(dir, 'config.capnp');
}
const workerdConfigs = Object.fromEntries(NAMES.map((name) => [name, workerdProbe(name, 0)])) as Record<Name, string>;

/** Wall time of one fresh `workerd test` process over the config: start, compile, global scope, exit. */
function bareWorkerdRun(config: string): number {
  const t0 = performance.now();
  const run = spawnSync(workerdBinary, ['test', config], { encoding: 'utf8' });
  const elapsed = performance.now() - t0;
  if (run.status !== 0) throw new Error(`workerd test failed:\n${run.stderr.slice(-2000)}`);
  return elapsed;
}

function probe(modulePath: string, nodeArgs: string[] = []): Sample {
  const run = spawnSync(process.execPath, [...nodeArgs, probePath, `file://${modulePath}`], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`probe failed:\n${run.stderr}`);
  // The last line; the Worker's own log lines come before it.
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Sample;
}

async function miniflareRun(scriptPath: string): Promise<Sample> {
  const port = await freePort();
  const t0 = performance.now();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      ...benchWorker(scriptPath, port),
      modules: true,
      scriptPath,
      modulesRoot: join(scriptPath, '..'),
      name: 'startup',
      ...runtimeOptions(),
    }),
  );
  try {
    await mf.ready;
    const t1 = performance.now();
    const first = await fetch(`http://127.0.0.1:${port}/me`);
    await first.arrayBuffer();
    const t2 = performance.now();
    const second = await fetch(`http://127.0.0.1:${port}/me`);
    await second.arrayBuffer();
    const t3 = performance.now();
    if (first.status !== 401 || second.status !== 401) throw new Error(`expected 401, got ${first.status} and ${second.status}`);
    return { globalScope: t1 - t0, firstRequest: t2 - t1, warmRequest: t3 - t2 };
  } finally {
    await mf.dispose();
  }
}

const node: Record<Name, Sample[]> = { trivial: [], against: [], ours: [] };
const workerd: Record<Name, Sample[]> = { trivial: [], against: [], ours: [] };
const bare: Record<Name, number[]> = { trivial: [], against: [], ours: [] };
log(`${RUNS} fresh Node processes, ${RUNS} fresh workerd processes and ${RUNS} fresh Miniflare instances per Worker, alternating`);
// One untimed instance first: this process's own first fetch (loading its HTTP client) is not the Worker's.
await miniflareRun(bundles.trivial.scriptPath);
bareWorkerdRun(workerdConfigs.trivial);
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 ? [...NAMES].reverse() : NAMES;
  for (const name of order) node[name].push(probe(nodeModules[name]));
  for (const name of order) bare[name].push(bareWorkerdRun(workerdConfigs[name]));
  for (const name of order) workerd[name].push(await miniflareRun((bundles[name] as Bundle).scriptPath));
}

// The first real request: the platform Worker in the trivial Worker's place.
const FIRST_NAMES: FirstName[] = AGAINST ? ['platform', 'against', 'ours'] : ['platform', 'ours'];
const seedDir = join(OUT, 'seed-10');
const seed = await ensureSeed(seedDir, 10, log);
const firstSetup = { seed, seedDir, createBody: JSON.stringify({ scenarioData: household(prng(36)) }), work: join(OUT, 'first') };
const firstScript = (name: FirstName) => (name === 'platform' ? bundles.platform : (bundles[name] as Bundle)).scriptPath;
const firstRuns: Record<Kind, Record<FirstName, FirstSample[]>> = { me: { platform: [], against: [], ours: [] }, create: { platform: [], against: [], ours: [] } };
log(`${RUNS} fresh Miniflare instances per Worker and first request (authenticated GET /me; POST /scenarios), alternating`);
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 ? [...FIRST_NAMES].reverse() : FIRST_NAMES;
  for (const kind of KINDS) for (const name of order) firstRuns[kind][name].push(await firstRequestRun(firstScript(name), kind, firstSetup));
}

const m = (samples: Sample[], pick: (s: Sample) => number) => median(samples.map(pick));
const scope = (s: Sample) => s.globalScope;
const firstExtra = (s: Sample) => s.firstRequest - s.warmRequest;
const rows: Array<[string, (name: Name) => number]> = [
  ['global scope: `import()` of the minified bundle in a fresh Node', (name) => m(node[name], scope)],
  ['global scope in workerd: a fresh `workerd test` process importing the bundle (start to exit)', (name) => median(bare[name])],
  ['first request − warm request, fresh Node process (GET /me)', (name) => m(node[name], firstExtra)],
  ['first request − warm request, fresh Miniflare instance (GET /me)', (name) => m(workerd[name], firstExtra)],
  ['Miniflare instance ready (workerd compiles and runs the global scope)', (name) => m(workerd[name], scope)],
  ['warm request, Miniflare (GET /me, client time)', (name) => m(workerd[name], (s) => s.warmRequest)],
];
const diff = (pick: (name: Name) => number, name: Name = 'ours') => pick(name) - pick('trivial');
const coldExtra = (name: Name) => diff(rows[0]![1], name) + diff(rows[3]![1], name);
const coldExtraWorkerd = (name: Name) => diff(rows[1]![1], name) + diff(rows[3]![1], name);
const ms = (value: number) => value.toFixed(1);
const firstExtraOf = (kind: Kind, name: FirstName) => median(firstRuns[kind][name].map((s) => s.first - s.warm));
const firstOver = (kind: Kind, name: FirstName) => firstExtraOf(kind, name) - firstExtraOf(kind, 'platform');
const LABEL: Record<Kind, string> = { me: 'GET /me with a valid key', create: 'POST /scenarios with a body' };
const firstRows: Array<[string, (name: FirstName) => number]> = KINDS.flatMap((kind) => [
  [`first request − warm request, fresh Miniflare instance (${LABEL[kind]})`, (name: FirstName) => firstExtraOf(kind, name)] as [string, (name: FirstName) => number],
  [`warm request, Miniflare (${LABEL[kind]}, client time)`, (name: FirstName) => median(firstRuns[kind][name].map((s) => s.warm))] as [string, (name: FirstName) => number],
]);
const wholeOf = (kind: Kind, name: 'against' | 'ours') => diff(rows[1]![1], name) + firstOver(kind, name);
const kib = (b: Bundle) => `${(b.minifiedBytes / 1024).toFixed(1)} KiB minified, ${(b.gzipBytes / 1024).toFixed(1)} KiB gzipped`;
const report = [
  `Medians of ${RUNS} fresh Node ${process.version} processes, ${RUNS} fresh workerd processes and ${RUNS} fresh Miniflare instances per Worker, alternating; ${new Date().toISOString()}.`,
  `Bundles: this service ${kib(bundles.ours)}; trivial Worker ${kib(bundles.trivial)}${bundles.against ? `; ${AGAINST} ${kib(bundles.against)}` : ''}.`,
  '',
  ...(AGAINST
    ? [
        `| ms | trivial Worker | ${AGAINST} | difference | this service | difference |`,
        '|---|---:|---:|---:|---:|---:|',
        ...rows.map(([label, pick]) => `| ${label} | ${ms(pick('trivial'))} | ${ms(pick('against'))} | ${ms(diff(pick, 'against'))} | ${ms(pick('ours'))} | ${ms(diff(pick))} |`),
        `| **cold request over a trivial Worker**: global scope (workerd) + first request's extra (Miniflare) | | | **${ms(coldExtraWorkerd('against'))}** | | **${ms(coldExtraWorkerd('ours'))}** |`,
        `| **cold request over a trivial Worker**: global scope (Node) + first request's extra (Miniflare) | | | **${ms(coldExtra('against'))}** | | **${ms(coldExtra('ours'))}** |`,
      ]
    : [
        '| ms | trivial Worker | this service | difference |',
        '|---|---:|---:|---:|',
        ...rows.map(([label, pick]) => `| ${label} | ${ms(pick('trivial'))} | ${ms(pick('ours'))} | ${ms(diff(pick))} |`),
        `| **cold request over a trivial Worker**: global scope (workerd) + first request's extra (Miniflare) | | | **${ms(coldExtraWorkerd('ours'))}** |`,
        `| **cold request over a trivial Worker**: global scope (Node) + first request's extra (Miniflare) | | | **${ms(coldExtra('ours'))}** |`,
      ]),
  '',
  'The first real request, against the platform Worker (bench/baseline/platform.ts: the rate limiter, a SHA-256 digest, one D1 batch); aims: the first request ≤ 5 ms over it, the whole ≤ 35 ms.',
  '',
  ...(AGAINST
    ? [
        `| ms | platform Worker | ${AGAINST} | difference | this service | difference |`,
        '|---|---:|---:|---:|---:|---:|',
        ...firstRows.map(([label, pick]) => `| ${label} | ${ms(pick('platform'))} | ${ms(pick('against'))} | ${ms(pick('against') - pick('platform'))} | ${ms(pick('ours'))} | ${ms(pick('ours') - pick('platform'))} |`),
        ...KINDS.map((kind) => `| **whole cold request** (${LABEL[kind]}): global scope (workerd) + first request's extra, over the trivial and platform Workers | | | **${ms(wholeOf(kind, 'against'))}** | | **${ms(wholeOf(kind, 'ours'))}** |`),
      ]
    : [
        '| ms | platform Worker | this service | difference |',
        '|---|---:|---:|---:|',
        ...firstRows.map(([label, pick]) => `| ${label} | ${ms(pick('platform'))} | ${ms(pick('ours'))} | ${ms(pick('ours') - pick('platform'))} |`),
        ...KINDS.map((kind) => `| **whole cold request** (${LABEL[kind]}): global scope (workerd) + first request's extra, over the trivial and platform Workers | | | **${ms(wholeOf(kind, 'ours'))}** |`),
      ]),
].join('\n');
console.log(report);
writeFileSync(resolve('bench/.out/startup.md'), `${report}\n`);

if (INSTRUCTIONS) {
  const scopes = countInstructions();
  if (scopes) await countFirstRequests(scopes);
}
if (PROFILE) await profile();

/**
 * Instructions of a fresh Node process importing each bundle (and serving its first request), and
 * of a fresh `workerd test` process doing the same, under callgrind.
 */
function countInstructions(): Record<Name, number> | undefined {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    log('valgrind is not installed: no instruction counts (apt install valgrind)');
    return undefined;
  }
  const count = (command: string[]): number => {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...command], { encoding: 'utf8' });
      const collected = /Collected : (\d+)/.exec(run.stderr)?.[1];
      if (run.status !== 0 || collected === undefined) throw new Error(`callgrind failed:\n${run.stderr.slice(-2000)}`);
      runs.push(Number(collected));
    }
    return median(runs);
  };
  const nodeProbe = (name: Name, withRequest: boolean) => [process.execPath, '--single-threaded', probePath, `file://${nodeModules[name]}`, ...(withRequest ? [] : ['--import-only'])];
  log('counting instructions under callgrind (3 runs per cell)');
  const cells = Object.fromEntries(
    NAMES.map((name) => [
      name,
      {
        scope: count(nodeProbe(name, false)),
        total: count(nodeProbe(name, true)),
        workerdScope: count([workerdBinary, 'test', workerdConfigs[name]]),
        workerdTotal: count([workerdBinary, 'test', workerdProbe(name, 1)]),
      },
    ]),
  ) as Record<Name, { scope: number; total: number; workerdScope: number; workerdTotal: number }>;
  const mi = (n: number) => (n / 1e6).toFixed(1);
  const others = NAMES.filter((name) => name !== 'trivial');
  const label = (name: Name) => (name === 'ours' ? 'this service' : AGAINST);
  const line = (title: string, key: 'scope' | 'total' | 'workerdScope' | 'workerdTotal') =>
    `| ${title} | ${mi(cells.trivial[key])} | ${others.map((name) => `${mi(cells[name][key])} | ${mi(cells[name][key] - cells.trivial[key])}`).join(' | ')} |`;
  const table = [
    `| M instructions (callgrind) | trivial Worker | ${others.map((name) => `${label(name)} | difference`).join(' | ')} |`,
    `|---|---:|${others.map(() => '---:|---:').join('|')}|`,
    line('fresh Node process: `import()` of the bundle', 'scope'),
    line('fresh Node process: `import()` + first request (GET /me)', 'total'),
    line('fresh `workerd test` process: importing the bundle', 'workerdScope'),
    line('fresh `workerd test` process: importing it + first request (GET /me)', 'workerdTotal'),
  ].join('\n');
  console.log(`\n${table}`);
  writeFileSync(resolve('bench/.out/startup.md'), `${report}\n\n${table}\n`);
  // The global scope in workerd over the trivial Worker's, for the whole cold request.
  return Object.fromEntries(NAMES.map((name) => [name, cells[name].workerdScope - cells.trivial.workerdScope])) as Record<Name, number>;
}

/**
 * Instructions of the first real request, the second and a warm third, per Worker (one instance per
 * cell). The whole cold request counts the first two over two warm ones: the isolate's first
 * scavenge falls on whichever request allocates enough, and must not leave the figure by moving.
 */
async function countFirstRequests(scopes: Record<Name, number>): Promise<void> {
  if (!valgrindPresent()) return;
  log('counting the first real requests under callgrind (one instance per cell)');
  const mi = (n: number) => (n / 1e6).toFixed(2);
  const lines = [
    '| M instructions (callgrind, whole workerd process) | ' + FIRST_NAMES.map((name) => (name === 'ours' ? 'this service' : name === 'against' ? AGAINST : 'platform Worker')).join(' | ') + ' |',
    `|---|${FIRST_NAMES.map(() => '---:').join('|')}|`,
  ];
  const detail: string[] = [];
  const firsts: Record<Kind, number[]> = { me: [], create: [] };
  const extras: Record<Kind, number[]> = { me: [], create: [] };
  for (const kind of KINDS) {
    const counts = [];
    for (const name of FIRST_NAMES) {
      const counted = await firstRequestCount(firstScript(name), kind, firstSetup, BY_CODE && name === 'ours');
      counts.push(counted);
      if (counted.byCode) {
        detail.push('', `First ${LABEL[kind]}, this service: JavaScript by module and function (thousands of instructions)`, '', '| module | instructions |', '|---|---:|', ...topRows(counted.byCode.modules, 15), '', '| function | instructions |', '|---|---:|', ...topRows(counted.byCode.functions, 40));
      }
    }
    lines.push(`| first ${LABEL[kind]} | ${counts.map((c) => mi(c.first)).join(' | ')} |`);
    lines.push(`| the same again (second) | ${counts.map((c) => mi(c.second)).join(' | ')} |`);
    lines.push(`| and a third, warm | ${counts.map((c) => mi(c.warm)).join(' | ')} |`);
    lines.push(`| first − warm | ${counts.map((c) => mi(c.first - c.warm)).join(' | ')} |`);
    lines.push(`| second − warm (the first scavenge, when it moved there) | ${counts.map((c) => mi(c.second - c.warm)).join(' | ')} |`);
    firsts[kind] = counts.map((c) => c.first - c.warm);
    // The first two requests' extra over two warm ones: the first scavenge counts wherever it falls.
    extras[kind] = counts.map((c) => c.first + c.second - 2 * c.warm);
  }
  // Over the platform Worker's, plus the global scope over the trivial Worker's.
  for (const kind of KINDS) {
    const over = (of: Record<Kind, number[]>, i: number) => (of[kind][i] ?? 0) - (of[kind][0] ?? 0);
    lines.push(`| first ${LABEL[kind]}: first − warm over the platform Worker's | ${FIRST_NAMES.map((_, i) => (i === 0 ? '' : mi(over(firsts, i)))).join(' | ')} |`);
    lines.push(`| first two: (first + second − 2 × warm) over the platform Worker's | ${FIRST_NAMES.map((_, i) => (i === 0 ? '' : mi(over(extras, i)))).join(' | ')} |`);
    lines.push(
      `| **whole cold request** (${LABEL[kind]}): global scope in workerd over the trivial Worker's + the first two's extra | ${FIRST_NAMES.map((name, i) => (i === 0 ? '' : `**${mi(scopes[name === 'platform' ? 'trivial' : name] + over(extras, i))}**`)).join(' | ')} |`,
    );
  }
  const table = [...lines, ...detail].join('\n');
  console.log(`\n${table}`);
  writeFileSync(resolve('bench/.out/startup-first.md'), `${table}\n`);
}

/** A CPU profile of the Node probe on an unminified bundle, charged to the bundle's modules. */
async function profile(): Promise<void> {
  log('profiling the Node probe on an unminified bundle');
  const bundle = bundleOurs(join(OUT, 'unminified'), { minify: false });
  const modulePath = asMjs('unminified', bundle);
  const dir = join(OUT, 'profile');
  rmSync(dir, { recursive: true, force: true });
  probe(modulePath, ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', dir]);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const table = chargeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, modulePath);
  console.log(`\nCPU profile (${join(dir, file)}), self time by module of the bundle, then by function:\n\n${table}`);
}

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

function chargeProfile(prof: Profile, bundlePath: string): string {
  // esbuild's unminified output names each module's section with a `// path` comment.
  const sections: Array<[number, string]> = [];
  readFileSync(bundlePath, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const match = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(line);
      if (match?.[1]) sections.push([index, match[1]]);
    });
  const sectionOf = (line: number) => {
    let found = '(bundle runtime)';
    for (const [start, name] of sections) {
      if (start > line) break;
      found = name;
    }
    return found;
  };
  const moduleOf = (section: string) => {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(section);
    return pkg?.[1] ?? section.split('/').slice(0, 2).join('/');
  };
  const selfMs = new Map<number, number>();
  prof.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);
  for (const node of prof.nodes) {
    const self = selfMs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const inBundle = url.endsWith('unminified.mjs');
    const where = inBundle ? moduleOf(sectionOf(lineNumber)) : url ? 'Node (outside the bundle)' : `(${functionName})`;
    add(byModule, where, self);
    add(byFunction, `${functionName || '(anonymous)'} — ${inBundle ? `${sectionOf(lineNumber)}:${lineNumber + 1}` : where}`, self);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, value]) => `| ${name} | ${value.toFixed(1)} |`)
      .join('\n');
  return `| module | self ms |\n|---|---:|\n${top(byModule, 20)}\n\n| function | self ms |\n|---|---:|\n${top(byFunction, 30)}`;
}
