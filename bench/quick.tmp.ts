// Temporary: first-create and first-me counts + bare workerd global scope counts for given builds.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { firstRequestCount } from './lib/first-request.ts';
import { topRows } from './lib/by-code.ts';
import { household, prng } from './lib/data.ts';
import { ensureSeed } from './lib/seed.ts';
import { compatibility } from './lib/server.ts';
const workerdBinary = (createRequire(createRequire(import.meta.url).resolve('miniflare'))('workerd') as { default: string }).default;
const OUT = resolve('bench/.out/quick');
mkdirSync(OUT, { recursive: true });
const log = (l: string) => process.stderr.write(`[quick] ${l}\n`);
const seedDir = resolve('bench/.out/startup/seed-10');
const seed = await ensureSeed(seedDir, 10, log);
const setup = { seed, seedDir, createBody: JSON.stringify({ scenarioData: household(prng(36)) }), work: join(OUT, 'first') };
const builds = process.argv.slice(2);
const kinds = (process.env.KINDS ?? 'create').split(',') as ('me' | 'create')[];
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
function scopeCount(script: string, i: number): number {
  const dir = join(OUT, `wd-${i}`); mkdirSync(dir, { recursive: true });
  copyFileSync(script, join(dir, 'worker.mjs'));
  writeFileSync(join(dir, 'probe.mjs'), `import worker from './worker.mjs';\nexport default { async test() {} };\n`);
  const { compatibilityDate, compatibilityFlags } = compatibility();
  writeFileSync(join(dir, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "startup", worker = .worker)]);
const worker :Workerd.Worker = (
  modules = [(name = "probe.mjs", esModule = embed "probe.mjs"), (name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "${compatibilityDate}",
  compatibilityFlags = [${compatibilityFlags.map((f) => JSON.stringify(f)).join(', ')}],
);
`);
  const runs: number[] = [];
  for (let r = 0; r < Number(process.env.SCOPE_RUNS ?? 3); r++) {
    const run = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', workerdBinary, 'test', join(dir, 'config.capnp')], { encoding: 'utf8' });
    runs.push(Number(/Collected : (\d+)/.exec(run.stderr)?.[1]));
  }
  return median(runs);
}
for (const [i, b] of builds.entries()) {
  const script = b.endsWith('.js') ? b : join(b, 'index.js');
  const out: string[] = [b];
  if (process.env.SCOPE !== '0') out.push(`scope ${(scopeCount(script, i) / 1e6).toFixed(1)}`);
  for (const kind of kinds) {
    const c = await firstRequestCount(script, kind, setup, process.env.BYCODE === '1');
    if (c.byCode) console.log([...topRows(c.byCode.modules, 20), '', ...topRows(c.byCode.functions, 50)].join('\n'));
    out.push(`${kind} first−warm ${((c.first - c.warm) / 1e6).toFixed(2)} (first ${(c.first / 1e6).toFixed(2)} warm ${(c.warm / 1e6).toFixed(2)})`);
  }
  console.log(out.join(' | '));
}
