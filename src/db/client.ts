// The database handle every query function takes, and the one drizzle instance they share.
//
// Queries are built and prepared once per isolate, not per request: drizzle's statement building
// was the largest cost of the app's own code (a third of its JavaScript time on list and save, in
// a profile of the app over a canned D1).
// A prepared query is tied to the client it was prepared on, while every request reads through
// its own D1 session (Sessions API: replicas, bookmarks). So drizzle's client is a router: its
// statements bind on whichever handle `run` names for the current call, carried by
// AsyncLocalStorage (the `nodejs_als` compatibility flag), so concurrent requests in one isolate
// never see each other's session.
import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle } from 'drizzle-orm/d1';

/** The database binding, or a request's session on it (same prepare/batch surface). */
export type Db = D1Database | D1DatabaseSession;

const handle = new AsyncLocalStorage<Db>();

function current(): Db {
  const db = handle.getStore();
  if (!db) throw new Error('query run outside run(db, …)');
  return db;
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
 * Runs `query` (a drizzle call on `orm`) against `db`. Awaited inside: a query builder is a
 * thenable that only executes when awaited, which must happen within the handle's scope.
 */
export function run<T>(db: Db, query: () => PromiseLike<T>): Promise<T> {
  return handle.run(db, async () => await query());
}
