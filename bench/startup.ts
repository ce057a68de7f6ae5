// `npm run bench:startup`: the cold-start cost of the bundle `wrangler deploy` uploads.
//
// Each run is a fresh Node process (the project's pinned Node, the V8 of workerd's generation)
// that imports the minified bundle of `wrangler deploy --dry-run --minify` as an ES module and
// times (1) the import itself: parsing, compiling and running the global scope, which is what a
// new isolate does before it can take a request, and (2) the first request, which builds what the
// global scope left for later (GET /me without a key: the app and its routes are built, the
// request is refused with 401 before any query; the D1 binding is a stand-in that only opens a
// session), and (3) a second such request, for
// the warm cost. Median and minimum over BENCH_STARTUP_RUNS (default 15) runs; the minimum is the
// figure least disturbed by other work on the machine.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleOurs } from './lib/bundle.ts';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const OUT = resolve('bench/.out/startup');

const PROBE = `
const url = process.argv[2];
const t0 = performance.now();
const worker = (await import(url)).default;
const t1 = performance.now();
// Every request opens a D1 session first; a refused one never uses it.
const env = { DB: { withSession: () => ({ getBookmark: () => null }) } };
const ctx = { waitUntil() {}, passThroughOnException() {} };
const first = await worker.fetch(new Request('http://startup.test/me'), env, ctx);
const t2 = performance.now();
const second = await worker.fetch(new Request('http://startup.test/me'), env, ctx);
const t3 = performance.now();
if (first.status !== 401 || second.status !== 401) throw new Error('expected 401, got ' + first.status + ' and ' + second.status);
console.log(JSON.stringify({ globalScope: t1 - t0, firstRequest: t2 - t1, warmRequest: t3 - t2 }));
`;

function stats(values: number[]): { median: number; min: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, min: sorted[0] ?? NaN };
}

console.log('[startup] bundling the service (wrangler deploy --dry-run --minify)');
const bundle = bundleOurs(join(OUT, 'bundle'));
mkdirSync(OUT, { recursive: true });
// `.mjs`: Node then compiles it as a module at once, instead of first guessing its format.
const modulePath = join(OUT, 'worker.mjs');
copyFileSync(bundle.scriptPath, modulePath);
const probePath = join(OUT, 'probe.mjs');
writeFileSync(probePath, PROBE);

const samples: Array<{ globalScope: number; firstRequest: number; warmRequest: number }> = [];
for (let i = 0; i < RUNS; i++) {
  const run = spawnSync(process.execPath, [probePath, `file://${modulePath}`], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`probe failed:\n${run.stderr}`);
  // The last line; the Worker's own log lines come before it.
  samples.push(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? ''));
}

const row = (name: string, values: number[]) => {
  const { median, min } = stats(values);
  return `| ${name} | ${median.toFixed(1)} | ${min.toFixed(1)} |`;
};
const report = [
  `Bundle: ${(bundle.minifiedBytes / 1024).toFixed(0)} KiB minified, ${(bundle.gzipBytes / 1024).toFixed(0)} KiB gzipped; ${RUNS} fresh Node ${process.version} processes.`,
  '',
  '| ms | median | min |',
  '|---|---:|---:|',
  row('global scope (import of the bundle)', samples.map((s) => s.globalScope)),
  row('first request (builds the app; 401 before any query)', samples.map((s) => s.firstRequest)),
  row('second request (warm)', samples.map((s) => s.warmRequest)),
].join('\n');
console.log(report);
writeFileSync(resolve('bench/.out/startup.md'), `${report}\n`);
