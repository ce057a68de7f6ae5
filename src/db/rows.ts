// Rows typed from the schema: D1 answers a row as its columns' SQL names (`account_id`); the code
// reads it as the table's row type (`Account`, `typeof accounts.$inferSelect`), named and typed by
// db/schema.ts. One reader per table, made once per isolate, maps the one onto the other, so no
// query module casts a column by hand, and a column added to the schema is read without a change
// here. Rows that join tables or compute columns have their own types and mappers, beside them.
import type { RawRow } from './statement.ts';

/** A table as db/schema.ts defines it: its row type, and its columns under their JS names. */
interface Table {
  readonly $inferSelect: object;
}

/** The columns of `table`: [JS name, SQL name] for each, in the schema's order. */
function columnsOf(table: Table): Array<[string, string]> {
  const columns: Array<[string, string]> = [];
  for (const [key, column] of Object.entries(table)) {
    // drizzle's columns (and drizzle-lite's, src/db/drizzle-lite/) name their table and SQL name.
    if (typeof column === 'object' && column !== null && 'table' in column && typeof column.name === 'string') columns.push([key, column.name]);
  }
  return columns;
}

/**
 * Reads rows of `table` (every column, or the ones `keys` names) as the schema types them. A
 * column the statement did not select, or NULL, is null.
 */
export function rowReader<T extends Table, K extends keyof T['$inferSelect'] & string = keyof T['$inferSelect'] & string>(
  table: T,
  keys?: readonly K[],
): (row: RawRow) => Pick<T['$inferSelect'], K> {
  let columns: Array<[string, string]> | undefined;
  return (row) => {
    // Worked out on first use, not at isolate start: most requests read one or two tables.
    columns ??= keys ? columnsOf(table).filter(([key]) => (keys as readonly string[]).includes(key)) : columnsOf(table);
    const out: Record<string, unknown> = {};
    for (const [key, name] of columns) out[key] = row[name] ?? null;
    return out as Pick<T['$inferSelect'], K>;
  };
}
