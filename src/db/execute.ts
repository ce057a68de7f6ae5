// Running statements on D1, with D1's transient faults retried (exponential backoff with jitter,
// p-retry). Every statement and batch the service sends is written so that running it again
// after it committed changes nothing and still reports what happened (see scenarios/workflows.ts),
// so a retry can never apply a write twice; when the retries run out the caller gets
// DatabaseUnavailableError, which the app answers with 503.
import pRetry from 'p-retry';
import type { RawRow, Session } from './statement.ts';

// D1's own words for faults after which the same call can succeed (Cloudflare's D1 docs, "Retry
// queries"; the first three are the ones its read-replication template retries).
const TRANSIENT = [
  'Network connection lost',
  'storage caused object to be reset',
  'reset because its code was updated',
  'Cannot resolve D1 DB due to transient issue',
  'Internal error in D1 DB storage',
  'D1 DB is overloaded',
];

/** Whether the error, or one of the errors it wraps as `cause` (drizzle and D1 both wrap), says one of `texts`. */
function saysAny(error: unknown, texts: readonly string[]): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { message } = e;
    if (texts.some((text) => message.includes(text))) return true;
  }
  return false;
}

/** True for an error D1 may not give again on the next try. */
export function isTransientD1Error(error: unknown): boolean {
  return saysAny(error, TRANSIENT);
}

/** D1 stayed unavailable through every retry; nothing the request asked for is half-done. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('D1 is unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * 5 tries within about two seconds: waits of 40–80, 80–160, 160–320 and 320–640 ms (doubling,
 * jittered by p-retry's `randomize`), so a user waits at most ~1.2 s plus the tries themselves.
 */
const RETRY = { retries: 4, factor: 2, minTimeout: 40, maxTimeout: 640, randomize: true, maxRetryTime: 2000 } as const;

// D1's own words for a database at its size limit (Cloudflare's D1 docs, "List of D1_ERRORs", and
// SQLite's SQLITE_FULL): the write changed nothing, and trying again cannot help.
const FULL = ['Exceeded maximum DB size', 'Exceeded maximum account storage', 'database or disk is full', 'SQLITE_FULL'];

/** True for D1's refusal of a write because the database (or the account's storage) is full. */
export function isDatabaseFullError(error: unknown): boolean {
  return saysAny(error, FULL);
}

/** D1 refused a write because its database is full; nothing of the batch was applied (507). */
export class DatabaseFullError extends Error {
  constructor(cause: unknown) {
    super('The D1 database is full', { cause });
    this.name = 'DatabaseFullError';
  }
}

async function withRetries<T>(call: () => Promise<T>): Promise<T> {
  // The first try without p-retry: nearly every call ends here, and p-retry's set-up (copying and
  // checking its options, its extra awaits) cost about 2 % of a create's instructions, and the
  // compiling of its code a new isolate's first request (bench/README.md, "Cold start").
  const started = performance.now();
  let first: unknown;
  try {
    return await call();
  } catch (error) {
    first = error;
  }
  try {
    // p-retry takes over as if its own first attempt had failed with that error: the same waits,
    // tries and time limit, from when the first try began.
    const maxRetryTime = Math.max(0, RETRY.maxRetryTime - (performance.now() - started));
    return await pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : call()), {
      ...RETRY,
      maxRetryTime,
      shouldRetry: ({ error }) => isTransientD1Error(error),
    });
  } catch (error) {
    if (isTransientD1Error(error)) throw new DatabaseUnavailableError(error);
    throw isDatabaseFullError(error) ? new DatabaseFullError(error) : error;
  }
}

/** Statements sent as one batch, by name. */
export type Batch = Record<string, D1PreparedStatement>;

/** Each statement's rows, under the name it was sent with. */
export type BatchRows<B extends Batch> = { [Name in keyof B]: RawRow[] };

/**
 * Runs statements as one D1 batch (one round trip, one transaction), in the order they were named,
 * and hands back each one's rows under its name: adding a statement never shifts what another
 * line reads. The only place where a batch's positions meet its names.
 */
export async function runBatch<B extends Batch>(session: Session, batch: B): Promise<BatchRows<B>> {
  return (await runMeasuredBatch(session, batch)).rows;
}

/**
 * The same, with the database's size in bytes once the batch ran, as D1 reports it (its last
 * statement's `meta.size_after`; null if D1 left it out): src/db/sizes.ts records it.
 */
export async function runMeasuredBatch<B extends Batch>(session: Session, batch: B): Promise<{ rows: BatchRows<B>; sizeAfter: number | null }> {
  const names = Object.keys(batch);
  const results = await withRetries(() => session.batch<RawRow>(names.map((name) => batch[name] as D1PreparedStatement)));
  const rows: Record<string, RawRow[]> = {};
  names.forEach((name, index) => {
    rows[name] = results[index]?.results ?? [];
  });
  const size = results.at(-1)?.meta.size_after;
  return { rows: rows as BatchRows<B>, sizeAfter: typeof size === 'number' ? size : null };
}

/** Runs one statement (one round trip); its rows. */
export async function runOne(session: Session, statement: D1PreparedStatement): Promise<RawRow[]> {
  const result = await withRetries(() => statement.all<RawRow>());
  return result.results;
}
