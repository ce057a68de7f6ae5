// node bench/profile.ts — where a Worker's own CPU goes: a V8 CPU profile of the Worker's isolate
// (through Miniflare's inspector proxy) while wrk drives one endpoint, from an unminified bundle so
// every sample can be charged to the module it came from (esbuild's `// node_modules/...` and
// `// src/...` section comments). The D1 simulator and the rate limiter run in other isolates
// and do not appear: this is the Worker's JavaScript alone, per request.
//
//   node bench/profile.ts                                   # ours, every endpoint, N=1,000
//   PROFILE_WORKER=base PROFILE_ENDPOINTS=view,save PROFILE_N=100000 node bench/profile.ts
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOurs, bundlePlain } from './lib/bundle.ts';
import { household, prng } from './lib/data.ts';
import { runWrk, writeWrkScript } from './lib/load.ts';
import { ensureSeed } from './lib/seed.ts';
import { freePort, startServer } from './lib/server.ts';
import { ENDPOINTS, targetFor, type Endpoint } from './lib/targets.ts';
import { Inspector } from './lib/inspector.ts';

const OUT = 'bench/.out';
const worker = process.env.PROFILE_WORKER ?? 'ours';
const n = Number(process.env.PROFILE_N ?? 1000);
const seconds = Number(process.env.PROFILE_DURATION ?? 4);
const connections = Number(process.env.PROFILE_CONCURRENCY ?? 1);
const endpoints = (process.env.PROFILE_ENDPOINTS ?? ENDPOINTS.join(',')).split(',') as Endpoint[];
for (const e of endpoints) if (!ENDPOINTS.includes(e)) throw new Error(`unknown endpoint ${e} (one of ${ENDPOINTS.join(', ')})`);

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

async function bundle(dir: string): Promise<string> {
  const entry = `bench/baseline/${worker === 'base' ? 'worker' : worker}.ts`;
  const built = worker === 'ours' ? bundleOurs(dir, { minify: false }) : await bundlePlain(entry, dir, { minify: false });
  return built.scriptPath;
}

/** For each line of the bundle (0-based), the section it belongs to: the package, or src/<dir>. */
function sections(bundlePath: string): string[] {
  const lines = readFileSync(bundlePath, 'utf8').split('\n');
  const out: string[] = [];
  let current = '(bundle)';
  for (const line of lines) {
    const m = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(line.trim());
    if (m?.[1]) {
      const file = m[1];
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
      current = pkg?.[1] ?? (file.startsWith('src/') ? file.split('/').slice(0, 2).join('/').replace(/\.ts$/, '') : file);
    }
    out.push(current);
  }
  return out;
}

function analyse(profile: Profile, lineSection: string[], bundleName: string, requests: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const bySection = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === '(idle)') continue;
    busy += micros;
    let section: string;
    if (frame.url.endsWith(bundleName)) section = lineSection[frame.lineNumber] ?? '(bundle)';
    else if (frame.url === '') section = frame.functionName.startsWith('(') ? frame.functionName : '(native)';
    else section = `(runtime) ${frame.url.replace(/^.*\//, '')}`;
    bySection.set(section, (bySection.get(section) ?? 0) + micros);
    const name = `${frame.functionName || '(anonymous)'} [${section}:${frame.lineNumber + 1}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const perRequest = (micros: number) => (micros / 1000 / Math.max(1, requests)).toFixed(3);
  const top = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([k, v]) => `| ${k} | ${perRequest(v)} | ${((100 * v) / busy).toFixed(1)}% |`);
  return { busy, bySection: top(bySection, 20), byFunction: top(byFunction, 25), perRequest: perRequest(busy) };
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const bundlePath = await bundle(join(OUT, `profile-${worker}`));
  const lineSection = sections(bundlePath);
  const seedDir = join(OUT, `seed-${n}`);
  const seed = await ensureSeed(seedDir, n, (l) => process.stderr.write(`[profile] ${l}\n`));
  const rand = prng(7);
  const createBody = join(OUT, 'bodies', 'profile-create.json');
  const saveBody = join(OUT, 'bodies', `profile-save-${n}.json`);
  mkdirSync(join(OUT, 'bodies'), { recursive: true });
  writeFileSync(createBody, JSON.stringify({ scenarioData: household(rand) }));
  writeFileSync(saveBody, JSON.stringify({ token: seed.saveToken, scenarioData: household(rand) }));

  const report: string[] = [`# CPU profile of ${worker}'s isolate — N=${n}, c=${connections}, ${seconds} s of wrk per endpoint`, ''];
  for (const endpoint of endpoints) {
    const state = join(OUT, 'profile-state');
    rmSync(state, { recursive: true, force: true });
    cpSync(seedDir, state, { recursive: true });
    const inspectorPort = await freePort();
    const server = await startServer({ scriptPath: bundlePath, stateDir: state, inspectorPort });
    try {
      const target = targetFor(endpoint, server.url, seed, { save: saveBody, create: createBody });
      const script = writeWrkScript(OUT, `profile-${endpoint}`, target);
      await runWrk(script, target.url, connections, 2);
      const list = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
      const url = list[0]?.webSocketDebuggerUrl;
      if (!url) throw new Error('no inspector target');
      const inspector = await Inspector.connect(url);
      await inspector.send('Profiler.enable');
      await inspector.send('Profiler.setSamplingInterval', { interval: 100 });
      await inspector.send('Profiler.start');
      const wrk = await runWrk(script, target.url, connections, seconds);
      const { profile } = await inspector.send<{ profile: Profile }>('Profiler.stop');
      inspector.close();
      writeFileSync(join(OUT, `profile-${worker}-${endpoint}-${n}.cpuprofile`), JSON.stringify(profile));
      const a = analyse(profile, lineSection, 'index.js', wrk.requests);
      report.push(
        `## ${endpoint}: ${a.perRequest} ms of sampled JS per request (${wrk.requests} requests, ${wrk.rps.toFixed(0)} req/s under the profiler)`,
        '',
        '| module | ms/request | share |',
        '|---|---:|---:|',
        ...a.bySection,
        '',
        '| function [module:line] | ms/request | share |',
        '|---|---:|---:|',
        ...a.byFunction,
        '',
      );
      process.stderr.write(`[profile] ${endpoint}: ${a.perRequest} ms/request\n`);
    } finally {
      await server.dispose();
    }
  }
  rmSync(join(OUT, 'profile-state'), { recursive: true, force: true });
  const text = `${report.join('\n')}\n`;
  writeFileSync(join(OUT, `profile-${worker}-${n}.md`), text);
  process.stdout.write(text);
}

await main();
