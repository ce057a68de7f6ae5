// drizzle's table and column builders (`drizzle-orm/sqlite-core/...`) as the Worker bundle sees
// them (see ./sql.ts): a table is its name and its columns, a column its name and its table,
// which is all a statement renders. Constraints, indexes, defaults and references are for
// drizzle-kit (the migrations), under Node with the real drizzle: here they record nothing.
import { TABLE_NAME, type LiteColumn, type LiteTable } from './sql.ts';

class ColumnBuilder {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  primaryKey(): this {
    return this;
  }
  notNull(): this {
    return this;
  }
  default(): this {
    return this;
  }
  unique(): this {
    return this;
  }
  references(): this {
    return this;
  }
  $type(): this {
    return this;
  }
  /** A generated column: its expression is drizzle-kit's (the migration); a statement names only the column. */
  generatedAlwaysAs(): this {
    return this;
  }
}

export const integer = (name: string) => new ColumnBuilder(name);
export const text = (name: string) => new ColumnBuilder(name);

export function sqliteTable(name: string, columns: Record<string, ColumnBuilder>): LiteTable & Record<string, LiteColumn> {
  const table = { [TABLE_NAME]: name } as LiteTable & Record<string, LiteColumn>;
  for (const [key, builder] of Object.entries(columns)) (table as Record<string, LiteColumn>)[key] = { name: builder.name, table };
  return table;
}

/** Indexes, checks and primary keys: built only by drizzle-kit (the extra-config callback is never called here). */
const constraint = () => ({ on: () => ({ where: () => ({}) }) });
export const index = constraint;
export const uniqueIndex = constraint;
export const check = () => ({});
export const primaryKey = () => ({});
