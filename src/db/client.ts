// The database handle every query function takes, and the one drizzle instance they share.
//
// Queries are built and prepared once per isolate, not per request: drizzle's statement building
// was the largest cost of the app's own code (a third of its JavaScript time on list and save, in
// a profile of the app over a canned D1).
// A prepared query is tied to the client it was prepared on, while every request reads through
// its own D1 session (Sessions API: replicas, bookmarks). So drizzle's client is a router: its
// statements bind on the handle `run` names, which is set only while `run` starts the query.
// drizzle binds a statement synchronously when a query starts (prepared or built), before its
// first await, and JavaScript runs one thing at a time, so no other request can run in between.
// A query that would bind later finds no handle and fails loudly (test/db.client.test.ts).
// This replaced AsyncLocalStorage, which cost about 10 % of view's CPU per request in workerd
// (fresh processes, c=8: 2.65 vs 2.41 ms, the baseline 2.36).
import { drizzle } from 'drizzle-orm/d1';

/** The database binding, or a request's session on it (same prepare/batch surface). */
export type Db = D1Database | D1DatabaseSession;

/** The handle of the query being started; set only inside `run`. */
let active: Db | undefined;

function current(): Db {
  if (!active) throw new Error('query run outside run(db, …)');
  return active;
}

// drizzle uses only prepare(sql).bind(...) and batch(statements) of its client.
const router = {
  prepare: (query: string) => ({ bind: (...values: unknown[]) => current().prepare(query).bind(...values) }),
  batch: (statements: D1PreparedStatement[]) => current().batch(statements),
};

/**
 * The isolate's drizzle instance. No `schema` option: the relational query API (db.query) is not
 * used, and it would add a relational config to build.
 */
export const orm = drizzle(router as unknown as D1Database);

/**
 * Runs `query` (a drizzle call on `orm`) against `db`. A query builder is a thenable that builds
 * and binds its statement only in `then`, so `then` is called here, while `db` is the handle.
 */
export function run<T>(db: Db, query: () => PromiseLike<T>): Promise<T> {
  const outer = active;
  active = db;
  try {
    const pending = query();
    return new Promise<T>((resolve, reject) => {
      pending.then(resolve, reject);
    });
  } catch (error) {
    return Promise.reject(error as Error);
  } finally {
    active = outer;
  }
}
