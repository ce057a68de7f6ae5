// `drizzle-orm/sqlite-core/dialect` as the Worker bundle sees it (see ./sql.ts): what
// src/db/statement.ts uses of SQLiteSyncDialect, its sqlToQuery with an overridable escapeName.
import { toQuery, type SQL } from './sql.ts';

export class SQLiteSyncDialect {
  escapeName(name: string): string {
    return `"${name}"`;
  }

  sqlToQuery(query: SQL): { sql: string; params: unknown[] } {
    return toQuery(query, (name) => this.escapeName(name));
  }
}
