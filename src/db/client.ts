// One drizzle instance per request over the request's D1 session, and the database type every
// query takes. No `schema` option: the relational query API (db.query) is not used, and passing
// the schema makes drizzle rebuild its relational config on every request (measured: ~0.1–0.2 ms
// of CPU per request in bench/profile.ts).
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';

export type Db = DrizzleD1Database;

export function createDb(d1: D1Database | D1DatabaseSession): Db {
  // A D1 session has the same prepare/batch surface as the binding (Sessions API, read replicas).
  return drizzle(d1 as D1Database);
}
