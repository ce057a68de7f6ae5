// The tests' view of every database at once. Accounts are spread over the databases
// wrangler.toml lists, so a row the test made through the API (found by its token, endpoint or
// event id) is in whichever database its account landed on. `everyDb` runs a statement on each:
// `first()` is the first row any database has, `all()` every database's rows (one account's rows
// are all in one database, so their order holds), `run()` changes in all. Counts and other
// aggregates answer in every database: ask the account's own (`dbOf` in api.ts) for those.
import { env } from 'cloudflare:workers';
import { readDatabases } from '../../src/env.ts';

export const everyDb = {
  prepare(sql: string) {
    const on = (params: unknown[]) => readDatabases(env).map((db) => db.prepare(sql).bind(...params));
    const statement = (params: unknown[]) => ({
      async first<T = Record<string, unknown>>(): Promise<T | null> {
        for (const s of on(params)) {
          const row = await s.first<T>();
          if (row !== null) return row;
        }
        return null;
      },
      async all<T = Record<string, unknown>>(): Promise<{ results: T[] }> {
        const results: T[] = [];
        for (const s of on(params)) results.push(...(await s.all<T>()).results);
        return { results };
      },
      async run(): Promise<{ meta: { changes: number } }> {
        let changes = 0;
        for (const s of on(params)) changes += (await s.run()).meta.changes;
        return { meta: { changes } };
      },
    });
    return { ...statement([]), bind: (...params: unknown[]) => statement(params) };
  },
  /** A `select count(*) as n …` over every database: the sum of their counts. */
  async count(sql: string, ...params: unknown[]): Promise<number> {
    let n = 0;
    for (const db of readDatabases(env)) n += (await db.prepare(sql).bind(...params).first<{ n: number }>())?.n ?? 0;
    return n;
  },
};
