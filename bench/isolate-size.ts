// node bench/isolate-size.ts: where the service's CPU per request goes beyond the code a request
// runs (save, c=8, N=BENCH_N or 100,000; see bench/README.md). It prints two comparisons:
//  1. one process: the service and the raw baseline as two Workers of ONE workerd (one D1), their
//     2 s wrk windows alternating: the cost of the service's per-request code alone;
//  2. fresh processes, one after the other as `npm run bench` runs them: the baseline, and
//     "loaded" — the baseline's handler in a bundle that also initialises the whole service
//     (bench/baseline/loaded.ts): the cost of the isolate's size alone.
import { mkdirSync, rmSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { bundleOurs, bundlePlain, type Bundle } from './lib/bundle.ts';
import { household, prng } from './lib/data.ts';
import { runWrk, writeWrkScript } from './lib/load.ts';
import { ensureSeed } from './lib/seed.ts';
import { benchWorker, CLK_TCK, cpuTicks, freePort, runtimeOptions, startServer, workerdChildren } from './lib/server.ts';

const OUT = 'bench/.out/isolate-size';
const n = Number(process.env.BENCH_N ?? 100_000);
const pairs = Number(process.env.BENCH_REPS ?? 3);
const windows = 8;
const log = (line: string) => process.stderr.write(`[isolate-size] ${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

mkdirSync(OUT, { recursive: true });
const seedDir = 'bench/.out/seed-' + n;
const seed = await ensureSeed(seedDir, n, log);
const bodyFile = join(OUT, 'save.json');
writeFileSync(bodyFile, JSON.stringify({ token: seed.saveToken, scenarioData: household(prng(7)) }));

log('bundling: the service, the baseline, and the baseline loaded with the service');
const bundles: Record<'ours' | 'base' | 'loaded', Bundle> = {
  ours: bundleOurs(join(OUT, 'ours')),
  base: await bundlePlain('bench/baseline/worker.ts', join(OUT, 'base')),
  loaded: await bundlePlain('bench/baseline/loaded.ts', join(OUT, 'loaded'), { importsService: true }),
};

function freshState(name: string): string {
  const dir = join(OUT, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(seedDir, dir, { recursive: true });
  return dir;
}

const target = (url: string, name: string) => {
  const t = { method: 'POST' as const, url: `${url}/scenarios/save`, headers: { Authorization: `Bearer ${seed.key}`, 'Content-Type': 'application/json' }, bodyFile };
  return { url: t.url, script: writeWrkScript(OUT, name, t) };
};

/** CPU ms per request of `pid` over one wrk window. */
async function window(pid: number, t: { url: string; script: string }, seconds: number): Promise<number> {
  const before = cpuTicks(pid);
  const wrk = await runWrk(t.script, t.url, 8, seconds);
  return ((cpuTicks(pid) - before) * 1000) / CLK_TCK / Math.max(1, wrk.requests);
}

// 1. One process, two Workers.
const oneProcess: Record<'ours' | 'base', number[]> = { ours: [], base: [] };
for (let rep = 0; rep < pairs; rep++) {
  const names = ['ours', 'base'] as const;
  const ports = [await freePort(), await freePort()];
  const running = new Set(workerdChildren());
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      ...runtimeOptions(),
      resourcePersistencePath: freshState('state-shared'),
      workers: names.map((name, i) => ({ name, ...benchWorker(bundles[name].scriptPath, ports[i] as number) })),
    }),
  );
  try {
    await mf.ready;
    const started = workerdChildren().filter((pid) => !running.has(pid));
    if (started.length !== 1) throw new Error(`expected one new workerd child process, found ${started.length}`);
    const pid = started[0] as number;
    const targets = names.map((name, i) => target(`http://127.0.0.1:${ports[i]}`, `one-process-${name}`));
    for (const t of targets) await runWrk(t.script, t.url, 8, 3);
    const runs: Record<'ours' | 'base', number[]> = { ours: [], base: [] };
    for (let w = 0; w < windows; w++) {
      for (const i of w % 2 ? [1, 0] : [0, 1]) runs[names[i] as 'ours' | 'base'].push(await window(pid, targets[i] as { url: string; script: string }, 2));
    }
    oneProcess.ours.push(median(runs.ours));
    oneProcess.base.push(median(runs.base));
    log(`one process, rep ${rep + 1}: ours ${median(runs.ours).toFixed(3)}, base ${median(runs.base).toFixed(3)} CPU ms/req`);
  } finally {
    await mf.dispose();
  }
}

// 2. Fresh processes: the baseline, and the baseline loaded with the service.
const fresh: Record<'base' | 'loaded', number[]> = { base: [], loaded: [] };
for (let rep = 0; rep < pairs; rep++) {
  for (const name of rep % 2 ? (['loaded', 'base'] as const) : (['base', 'loaded'] as const)) {
    const server = await startServer({ scriptPath: bundles[name].scriptPath, stateDir: freshState(`state-${name}`) });
    try {
      const t = target(server.url, `fresh-${name}`);
      await runWrk(t.script, t.url, 8, 3);
      const values: number[] = [];
      for (let w = 0; w < windows; w++) values.push(await window(server.pid, t, 2));
      fresh[name].push(median(values));
      log(`fresh process, rep ${rep + 1}: ${name} ${median(values).toFixed(3)} CPU ms/req`);
    } finally {
      await server.dispose();
    }
  }
}

const ratio = (a: number[], b: number[]) => a.map((x, i) => (x / (b[i] as number)).toFixed(2)).join(', ');
process.stdout.write(
  [
    `# Isolate size — save, c=8, N=${n}, ${pairs} rep(s) of ${windows} × 2 s windows (medians per rep), ${new Date().toISOString()}`,
    '',
    `- one workerd, both Workers, windows alternating: ours/base = ${ratio(oneProcess.ours, oneProcess.base)}`,
    `- fresh processes: loaded/base = ${ratio(fresh.loaded, fresh.base)} (loaded: the baseline's code in an isolate that also holds the service)`,
    '',
  ].join('\n'),
);
