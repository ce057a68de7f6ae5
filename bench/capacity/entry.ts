// The capacity bench's Worker: the service's own default export, called with each D1 binding
// (DB, DB_2, …) behind a simulated production bottleneck: one database runs one batch at a time,
// and a batch (or a lone statement) holds it for BENCH_D1_STATEMENT_MS per statement. The real
// local D1 then runs the call, so replies are real. bench/capacity.ts bundles this file next to
// the service's deployed bundle, which it imports unchanged.
//
// Each database is a FIFO single server with a deterministic service time: a call arriving while
// the database is busy waits until the calls before it are served. The queue is kept as each
// database's "busy until" time rather than a chain of promises, because a promise one request
// resolves for another is something workerd warns about (and may refuse); a number is not.
// It is module-level state shared by every request on purpose: it *is* the shared database.
// GET /__bench/d1 answers how long each database has been busy so far (ms), which the bench turns
// into each database's utilisation: near 100 % means D1 is the limit, well below it something
// else (the CPU) is.
import service from '../../src/index.ts';

type BenchEnv = Env & { BENCH_D1_STATEMENT_MS?: string };

/** Per binding name: the time (ms, Date.now()'s clock) until which the database is busy. */
const busyUntil = new Map<string, number>();
/** Per binding name: the service time it has given so far (ms). */
const busyTotal = new Map<string, number>();

const handler: Pick<ExportedHandler<Env>, 'fetch'> = service;

function forward<T extends object>(target: T, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

/** Waits for the database's turn, holds it for `statements` × `perStatementMs`, then runs `call`. */
async function served<T>(name: string, statements: number, perStatementMs: number, call: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const start = Math.max(now, busyUntil.get(name) ?? 0);
  const done = start + statements * perStatementMs;
  busyUntil.set(name, done);
  busyTotal.set(name, (busyTotal.get(name) ?? 0) + statements * perStatementMs);
  if (done > now) await new Promise((resolve) => setTimeout(resolve, done - now));
  return call();
}

const STATEMENT_CALLS = new Set<string | symbol>(['all', 'run', 'first', 'raw']);

/** `db` with every round trip served by the database `name`'s single server. */
function serialized(name: string, db: D1Database, perStatementMs: number): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>();
  const statement = (target: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(target, {
      get(t, prop) {
        if (prop === 'bind') return (...values: unknown[]) => statement(t.bind(...values));
        if (STATEMENT_CALLS.has(prop)) {
          const method = Reflect.get(t, prop, t) as (...args: unknown[]) => Promise<unknown>;
          return (...args: unknown[]) => served(name, 1, perStatementMs, () => method.apply(t, args));
        }
        return forward(t, prop);
      },
    });
    real.set(proxy, target);
    return proxy;
  };
  const batch = (target: D1Database | D1DatabaseSession) => (statements: D1PreparedStatement[]) =>
    served(name, statements.length, perStatementMs, () => target.batch(statements.map((s) => real.get(s) ?? s)));
  const session = (target: D1DatabaseSession): D1DatabaseSession =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'prepare') return (sql: string) => statement(t.prepare(sql));
        if (prop === 'batch') return batch(t);
        return forward(t, prop);
      },
    });
  return new Proxy(db, {
    get(t, prop) {
      if (prop === 'prepare') return (sql: string) => statement(t.prepare(sql));
      if (prop === 'batch') return batch(t);
      if (prop === 'withSession') return (...args: Parameters<D1Database['withSession']>) => session(t.withSession(...args));
      return forward(t, prop);
    },
  });
}

export default {
  async fetch(request, env: BenchEnv, ctx) {
    if (!handler.fetch) throw new Error('the service has no fetch handler');
    if (new URL(request.url).pathname === '/__bench/d1') return Response.json(Object.fromEntries(busyTotal));
    const perStatementMs = Number(env.BENCH_D1_STATEMENT_MS ?? 1);
    const databases = Object.fromEntries(
      Object.entries(env)
        .filter(([name]) => /^DB(_[0-9]+)?$/.test(name))
        .map(([name, db]) => [name, serialized(name, db as D1Database, perStatementMs)]),
    );
    return handler.fetch(request, { ...env, ...databases }, ctx);
  },
} satisfies ExportedHandler<BenchEnv>;
