// One drizzle instance per request over the D1 binding, and the database type every query takes.
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema.ts';

export type Db = DrizzleD1Database<typeof schema>;

export function createDb(d1: D1Database | D1DatabaseSession): Db {
  // A D1 session has the same prepare/batch surface as the binding (Sessions API, read replicas).
  return drizzle(d1 as D1Database, { schema });
}
