// The real local D1, failing chosen round trips the way production's D1 can: before the call
// runs (nothing happened), or after it committed (the work is done, the reply is lost). Local D1
// never fails by itself; this is how the service's retries are put to the test.
import { env } from 'cloudflare:workers';
import { readDatabases } from '../../src/env.ts';
import { wrapD1 } from './wrapped-d1.ts';

export type Fault = 'before' | 'after';

/** D1's wording for a dropped connection, which the service treats as transient. */
export const TRANSIENT_MESSAGE = 'D1_ERROR: Network connection lost.';

export interface FaultyD1 {
  /** The first database (DB), wrapped. */
  db: D1Database;
  /** Every database binding (DB, DB_2, …), wrapped, one plan and one count for all: a Worker's env on them. */
  bindings: Record<string, D1Database>;
  /** Round trips attempted so far (a batch is one), failed ones included. */
  readonly calls: number;
  /** Faults injected so far, by kind. */
  readonly injected: Record<Fault, number>;
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

  const bindings = Object.fromEntries(
    readDatabases(env).map((db, i) => [i === 0 ? 'DB' : `DB_${i + 1}`, wrapD1(db, { statement: roundTrip, batch: (run) => roundTrip(run) })]),
  );
  return {
    db: bindings.DB!,
    bindings,
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
