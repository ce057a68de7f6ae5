// Serving a bundled Worker under Miniflare's API with a direct socket to the Worker (no entry
// worker, no `wrangler dev` proxy), and reading the CPU time of the workerd process.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare';
import { experimental_readRawConfig } from 'wrangler';

export const BINDINGS = {
  ADMIN_TOKEN: 'bench-admin-token-not-a-secret-0123456789',
  CHART_SIGNING_KEY: 'bench-chart-signing-key-not-a-secret-0123456789',
  SCENARIO_RETENTION_DAYS: '',
  CHART_URL_TTL_SECONDS: '3600',
  RATE_LIMIT_PER_MINUTE: '600',
};

/** The compatibility date and flags of wrangler.toml: every Worker of the bench runs under the service's runtime. */
export function compatibility(): { compatibilityDate: string; compatibilityFlags: string[] } {
  const { rawConfig } = experimental_readRawConfig({ config: 'wrangler.toml' });
  if (!rawConfig.compatibility_date) throw new Error('no compatibility_date in wrangler.toml');
  return { compatibilityDate: rawConfig.compatibility_date, compatibilityFlags: rawConfig.compatibility_flags ?? [] };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Server {
  mf: Miniflare;
  /** The workerd process serving the Worker. */
  pid: number;
  /** Base URL of the Worker's direct socket. */
  url: string;
  dispose: () => Promise<void>;
}

/** Children of this process whose command is workerd. */
export function workerdChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === process.pid && comm.startsWith('workerd')) pids.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return pids;
}

/** Clock ticks per second, the unit of cpuTicks. */
export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of a process (all its threads), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state(3) ppid(4) ... utime(14) stime(15) → indexes 11 and 12 here.
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * One Worker of the bench: the bundle on a direct socket (no Miniflare entry worker, no
 * `wrangler dev` proxy), under wrangler.toml's compatibility, with D1 and the service's bindings.
 */
export function benchWorker(scriptPath: string, port: number, { withRateLimits = true, databases = 1 } = {}) {
  return {
    modules: true as const,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    ...compatibility(),
    // DB, then DB_2, DB_3, … as wrangler.toml lists them (accounts are spread over them).
    d1Databases: Object.fromEntries(databaseBindings(databases).map((name, i) => [name, i === 0 ? 'bench-scenario-service' : `bench-scenario-service-${i + 1}`])),
    // Every change hands its event to the webhook queue after the reply (no consumer here: the
    // bench measures the requests, and the baseline sends the same message).
    queueProducers: { WEBHOOK_QUEUE: { queueName: 'bench-scenario-webhooks' } },
    ...(withRateLimits
      ? {
          // The service needs both bindings; limits so high the benchmark is never throttled.
          ratelimits: {
            KEY_RATE_LIMITER: { namespace_id: '1001', simple: { limit: 1_000_000_000, period: 60 as const } },
            AUTH_FAILURE_LIMITER: { namespace_id: '1002', simple: { limit: 1_000_000_000, period: 60 as const } },
          },
        }
      : {}),
    bindings: BINDINGS,
    unsafeDirectSockets: [{ host: '127.0.0.1', port }],
  };
}

/** The admin API's Worker beside `service`: its databases, vars and failed-auth limiter. */
function adminWorker(scriptPath: string, service: { d1Databases: Record<string, string>; bindings: Record<string, string> }) {
  const { ADMIN_TOKEN, DATABASE_MAX_BYTES } = service.bindings as Record<string, string | undefined>;
  return {
    name: 'bench-admin',
    modules: true as const,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    ...compatibility(),
    d1Databases: service.d1Databases,
    ratelimits: { AUTH_FAILURE_LIMITER: { namespace_id: '1002', simple: { limit: 1_000_000_000, period: 60 as const } } },
    bindings: { ADMIN_TOKEN: ADMIN_TOKEN!, ...(DATABASE_MAX_BYTES === undefined ? {} : { DATABASE_MAX_BYTES }) },
  };
}

/** The D1 bindings of `count` databases, in the service's order: DB, DB_2, DB_3, … */
export function databaseBindings(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? 'DB' : `DB_${i + 1}`));
}

/** The workerd process's settings: no Request.cf fetch, no observability, request logs or telemetry. */
export function runtimeOptions() {
  return {
    cf: false,
    port: 0,
    host: '127.0.0.1',
    logRequests: false,
    unsafeObservability: false,
    unsafeLocalExplorer: false,
    unsafeTriggerHandlers: false,
    telemetry: { enabled: false },
    log: new Log(LogLevel.WARN),
    // workerd's stdout/stderr arrive here as structured lines: drop the Workers' access logs
    // (both write one per request, which workerd still pays for), keep warnings and errors.
    handleStructuredLogs: (entry: { level: string; message: string }) => {
      if (entry.level === 'error' || entry.level === 'warn') process.stderr.write(`[workerd ${entry.level}] ${entry.message}\n`);
    },
  };
}

export async function startServer(options: {
  scriptPath: string;
  /** Miniflare's resource persistence root (D1 lives under it). */
  stateDir?: string;
  /** Worker source given inline instead of scriptPath (the seeding helper). */
  script?: string;
  port?: number;
  withRateLimits?: boolean;
  /** Serve the V8 inspector (through Miniflare's proxy) on this port, for CPU profiles. */
  inspectorPort?: number;
  /** More vars for the Worker, besides BINDINGS. */
  bindings?: Record<string, string>;
  /** D1 databases to bind (DB, DB_2, …); 1 when unset. */
  databases?: number;
  /** More ES modules that scriptPath imports (Miniflare does not follow imports), in its folder. */
  modules?: string[];
  /**
   * The admin API's Worker (bundle.ts `bundleAdmin`), served beside it behind its ADMIN binding,
   * on the same databases: for the benches that make their accounts through /admin.
   */
  admin?: string;
  /**
   * Find the workerd process (for its CPU time). `false` when workerd runs under another program
   * (bench/instructions.ts: valgrind), whose process is not named workerd; `pid` is then -1.
   */
  findProcess?: boolean;
}): Promise<Server> {
  const before = new Set(workerdChildren());
  const port = options.port ?? (await freePort());
  const modulesRoot = dirname(options.scriptPath);
  const source =
    options.modules !== undefined
      ? { modules: [options.scriptPath, ...options.modules].map((path) => ({ type: 'ESModule' as const, path })), modulesRoot }
      : options.script === undefined
        ? { modules: true as const, scriptPath: options.scriptPath, modulesRoot }
        : { modules: true as const, script: options.script, scriptPath: options.scriptPath, modulesRoot };
  const worker = {
    ...benchWorker(options.scriptPath, port, { withRateLimits: options.withRateLimits !== false, databases: options.databases ?? 1 }),
    ...source,
    ...(options.bindings === undefined ? {} : { bindings: { ...BINDINGS, ...options.bindings } }),
    name: 'bench',
    ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort, unsafeInspectorProxy: true }),
    ...(options.stateDir === undefined ? {} : { resourcePersistencePath: options.stateDir }),
    ...runtimeOptions(),
  };
  const mf = new Miniflare(
    convertV4MiniflareOptions(
      options.admin === undefined
        ? worker
        : {
            ...runtimeOptions(),
            ...(options.stateDir === undefined ? {} : { resourcePersistencePath: options.stateDir }),
            workers: [{ ...worker, serviceBindings: { ADMIN: 'bench-admin' } }, adminWorker(options.admin, worker)],
          },
    ),
  );
  await mf.ready;
  if (options.findProcess === false) return { mf, pid: -1, url: `http://127.0.0.1:${port}`, dispose: () => mf.dispose() };
  const fresh = workerdChildren().filter((pid) => !before.has(pid));
  if (fresh.length !== 1) {
    await mf.dispose();
    throw new Error(`expected one new workerd child process, found ${fresh.length}`);
  }
  return { mf, pid: fresh[0] as number, url: `http://127.0.0.1:${port}`, dispose: () => mf.dispose() };
}
