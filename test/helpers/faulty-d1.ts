// The real local D1, failing chosen round trips the way production's D1 can: before the call
// runs (nothing happened), or after it committed (the work is done, the reply is lost). Local D1
// never fails by itself; this is how the service's retries are put to the test.
import { env } from 'cloudflare:workers';

export type Fault = 'before' | 'after';

/** D1's wording for a dropped connection, which the service treats as transient. */
export const TRANSIENT_MESSAGE = 'D1_ERROR: Network connection lost.';

export interface FaultyD1 {
  db: D1Database;
  /** Round trips attempted so far (a batch is one), failed ones included. */
  readonly calls: number;
  /** Faults injected so far, by kind. */
  readonly injected: Record<Fault, number>;
}

const TERMINAL = new Set(['all', 'run', 'first', 'raw']);
const REAL = Symbol('real statement');

/** Calls a method on its own target: D1's objects refuse to run with a Proxy as `this`. */
function forward<T extends object>(target: T, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

/** `plan(n)` decides the fate of the n-th round trip (1-based): a fault, or none. */
export function faultyD1(plan: (call: number) => Fault | undefined): FaultyD1 {
  const state = { calls: 0, injected: { before: 0, after: 0 } as Record<Fault, number> };

  async function roundTrip<T>(call: () => Promise<T>): Promise<T> {
    state.calls += 1;
    const fault = plan(state.calls);
    if (fault === 'before') {
      state.injected.before += 1;
      throw new Error(TRANSIENT_MESSAGE);
    }
    const result = await call();
    if (fault === 'after') {
      state.injected.after += 1;
      throw new Error(TRANSIENT_MESSAGE);
    }
    return result;
  }

  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop) {
        if (prop === REAL) return target;
        if (prop === 'bind') return (...values: unknown[]) => wrapStatement(target.bind(...values));
        if (typeof prop === 'string' && TERMINAL.has(prop)) {
          return (...args: unknown[]) => roundTrip(() => (Reflect.get(target, prop, target) as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        }
        return forward(target, prop);
      },
    });

  const real = (statement: D1PreparedStatement): D1PreparedStatement =>
    (statement as unknown as Record<symbol, D1PreparedStatement>)[REAL] ?? statement;

  function wrapHandle<T extends D1Database | D1DatabaseSession>(handle: T): T {
    return new Proxy(handle, {
      get(target, prop) {
        if (prop === 'prepare') return (query: string) => wrapStatement(target.prepare(query));
        if (prop === 'batch') return (statements: D1PreparedStatement[]) => roundTrip(() => target.batch(statements.map(real)));
        if (prop === 'withSession') return (constraint?: string) => wrapHandle((target as D1Database).withSession(constraint));
        return forward(target, prop);
      },
    });
  }

  return {
    db: wrapHandle(env.DB),
    get calls() {
      return state.calls;
    },
    get injected() {
      return state.injected;
    },
  };
}

/** A small seeded PRNG (mulberry32), so a randomised fault run is the same run every time. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
