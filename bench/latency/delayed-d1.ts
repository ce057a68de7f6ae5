// A D1 binding that pays a fixed delay per round trip, as a Worker far from its D1 primary does,
// and reports each round trip to an observer. Bench-only and self-contained (no service imports).
//
// A round trip is one awaited call to the database: a statement's all/run/first/raw, a batch (one
// round trip however many statements it holds) and exec. prepare() and bind() only build a
// statement locally. Sessions from withSession() are wrapped the same way; getBookmark() and
// anything else pass through untouched.

/** Called when a round trip starts; the function it returns is called when it has ended (either way). */
export type RoundTripObserver = (kind: RoundTripKind) => () => void;
export type RoundTripKind = 'all' | 'run' | 'first' | 'raw' | 'batch' | 'exec';

const STATEMENT_CALLS = new Set<string | symbol>(['all', 'run', 'first', 'raw']);

/** A member of the real object, bound to it: D1's objects refuse to run with a Proxy as `this`. */
function forward<T extends object>(target: T, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

function sleep(ms: number): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}

/**
 * `db` with `delayMs` added to every round trip, all of it before the call reaches D1: one timer
 * per round trip, because each timer overshoots (1–2 ms in workerd on the reference machine;
 * splitting the delay into a way there and a way back measured /me at 1.11 round trips, not 1.04).
 */
export function delayedD1(db: D1Database, delayMs: number, observe: RoundTripObserver): D1Database {
  // batch() must get D1's own statements, not our proxies of them.
  const real = new WeakMap<object, D1PreparedStatement>();

  async function trip<T>(kind: RoundTripKind, call: () => Promise<T>): Promise<T> {
    const ended = observe(kind);
    try {
      await sleep(delayMs);
      return await call();
    } finally {
      ended();
    }
  }

  const statement = (target: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(target, {
      get(t, prop) {
        if (prop === 'bind') return (...values: unknown[]) => statement(t.bind(...values));
        if (STATEMENT_CALLS.has(prop)) {
          const method = Reflect.get(t, prop, t) as (...args: unknown[]) => Promise<unknown>;
          return (...args: unknown[]) => trip(prop as RoundTripKind, () => method.apply(t, args));
        }
        return forward(t, prop);
      },
    });
    real.set(proxy, target);
    return proxy;
  };

  const batch = (target: D1Database | D1DatabaseSession) => (statements: D1PreparedStatement[]) =>
    trip('batch', () => target.batch(statements.map((s) => real.get(s) ?? s)));

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
      if (prop === 'exec') return (sql: string) => trip('exec', () => t.exec(sql));
      if (prop === 'withSession') return (...args: Parameters<D1Database['withSession']>) => session(t.withSession(...args));
      return forward(t, prop);
    },
  });
}
