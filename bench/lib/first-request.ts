// The first real request of a fresh instance, as a client makes it (bench/startup.ts): an
// authenticated GET /me with a valid key, or a create with a body, sent to a fresh Miniflare
// instance (one workerd process) serving the bundle over a seeded D1, then the same request again.
// Timed from this process (first and warm; client costs cancel in their difference), and counted
// under callgrind (the whole workerd process: the Worker, the D1 simulator and the rate limiter,
// from the moment the instance is ready, so the global scope is not in it), where V8 runs
// single-threaded so that compiling on first call is counted where it happens.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { byCode, PERF_MAP_FLAGS, type ByCode } from './by-code.ts';
import type { SeedInfo } from './seed.ts';
import { startServer } from './server.ts';
import { callgrindChild, callgrindWorkerd } from './callgrind.ts';

export const KINDS = ['me', 'create'] as const;
export type Kind = (typeof KINDS)[number];

export interface FirstSample {
  first: number;
  warm: number;
}

export interface FirstRequestSetup {
  seed: SeedInfo;
  /** The seeded state folder, copied for each instance (a create writes to it). */
  seedDir: string;
  /** A create body (JSON text). */
  createBody: string;
  work: string;
}

const EXPECTED: Record<Kind, number> = { me: 200, create: 201 };

function send(base: string, kind: Kind, setup: FirstRequestSetup): Promise<Response> {
  const headers = { Authorization: `Bearer ${setup.seed.key}` };
  return kind === 'me'
    ? fetch(`${base}/me`, { headers })
    : fetch(`${base}/scenarios`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: setup.createBody });
}

async function timed(base: string, kind: Kind, setup: FirstRequestSetup): Promise<number> {
  const t0 = performance.now();
  const res = await send(base, kind, setup);
  await res.arrayBuffer();
  const elapsed = performance.now() - t0;
  if (res.status !== EXPECTED[kind]) throw new Error(`${kind}: expected ${EXPECTED[kind]}, got ${res.status}`);
  return elapsed;
}

function freshState(setup: FirstRequestSetup, name: string): string {
  const state = join(setup.work, `state-${name}`);
  rmSync(state, { recursive: true, force: true });
  cpSync(setup.seedDir, state, { recursive: true });
  return state;
}

/** One fresh instance: the first request and the same request again, timed. */
export async function firstRequestRun(scriptPath: string, kind: Kind, setup: FirstRequestSetup): Promise<FirstSample> {
  const server = await startServer({ scriptPath, stateDir: freshState(setup, 'timed'), findProcess: false });
  try {
    const first = await timed(server.url, kind, setup);
    const warm = await timed(server.url, kind, setup);
    return { first, warm };
  } finally {
    await server.dispose();
  }
}

export interface FirstCount {
  first: number;
  /** The second request: where the isolate's first scavenge lands when the first did not set it off. */
  second: number;
  /** The third, warm: what every later request costs. */
  warm: number;
  /** The first request's instructions by JavaScript function (withByCode only). */
  byCode?: ByCode;
}

/**
 * Instructions of the first request of a fresh instance and of the same request twice more (the
 * whole workerd process, counting only while each request is under way). The third is the warm
 * one: the second may still carry the isolate's first scavenge of what the global scope left
 * alive, which falls on whichever request allocates enough, so a figure that counts the first
 * request alone could improve by moving it to the second.
 */
export async function firstRequestCount(scriptPath: string, kind: Kind, setup: FirstRequestSetup, withByCode = false): Promise<FirstCount> {
  const dir = join(setup.work, `callgrind-${kind}-${scriptPath.split('/').at(-2)}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.env.MINIFLARE_WORKERD_PATH = callgrindWorkerd(dir);
  process.env.MINIFLARE_WORKERD_V8_FLAGS = withByCode ? `--single-threaded --interpreted-frames-native-stack ${PERF_MAP_FLAGS}` : '--single-threaded';
  // More V8 flags for the counted instances (bench/README.md: `--min-semi-space-size=16` leaves the
  // first requests without a scavenge, which tells the garbage collector's share from the rest).
  const extra = process.env.BENCH_STARTUP_V8_FLAGS?.trim();
  if (extra) process.env.MINIFLARE_WORKERD_V8_FLAGS += ` ${extra}`;
  const server = await startServer({ scriptPath, stateDir: freshState(setup, 'counted'), findProcess: false });
  try {
    const pid = callgrindChild();
    const countOne = async (label: string): Promise<{ total: number; dump: string | undefined }> => {
      const before = new Set(readdirSync(dir));
      execFileSync('callgrind_control', ['--zero', pid], { stdio: 'ignore' });
      execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
      const res = await send(server.url, kind, setup);
      await res.arrayBuffer();
      if (res.status !== EXPECTED[kind]) throw new Error(`${kind}: expected ${EXPECTED[kind]}, got ${res.status}`);
      execFileSync('callgrind_control', [`--dump=${label}`, pid], { stdio: 'ignore' });
      execFileSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
      let total = 0;
      const dumps = readdirSync(dir).filter((f) => f.startsWith(`callgrind.${pid}`) && !before.has(f));
      for (const file of dumps) {
        const summary = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
        if (summary) total += Number(summary[1]);
      }
      if (total === 0) throw new Error('callgrind wrote no counts');
      return { total, dump: dumps.find((f) => statSync(join(dir, f)).size > 0) };
    };
    const first = await countOne('first');
    const second = await countOne('second');
    const warm = await countOne('warm');
    if (!withByCode || !first.dump) return { first: first.total, second: second.total, warm: warm.total };
    try {
      return { first: first.total, second: second.total, warm: warm.total, byCode: byCode(join(dir, first.dump), pid, 1, scriptPath, 'bundle') };
    } finally {
      rmSync(`/tmp/perf-${pid}.map`, { force: true });
    }
  } finally {
    await server.dispose();
    delete process.env.MINIFLARE_WORKERD_PATH;
    delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
  }
}
