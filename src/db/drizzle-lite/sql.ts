// `drizzle-orm/sql/sql` as the Worker bundle sees it (wrangler.toml [alias]; vitest.config.ts too,
// so the tests run the same code): the `sql` template tag and what src/db/statement.ts renders, for
// the statements of src/db/ as they are written. drizzle stays the source of the schema, the
// queries and the migrations (drizzle-kit, Node); in the Worker a statement is rendered once per
// isolate from these few classes instead of drizzle's 40 KiB, which every new isolate compiled.
// test/db.drizzle-lite.test.ts renders every statement of src/db/ here and holds the result
// against drizzle's own rendering (made under Node when the tests start): a statement using a part
// of drizzle this file lacks fails there. The reference is drizzle-orm 0.45's sql/sql.js.

/** A column of a table (src/db/drizzle-lite/schema.ts): rendered `table`.`column`. */
export interface LiteColumn {
  readonly name: string;
  readonly table: LiteTable;
}

/** A table: rendered `table`. */
export interface LiteTable {
  readonly [TABLE_NAME]: string;
}

export const TABLE_NAME = Symbol('drizzle-lite table name');

class StringChunk {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

class Name {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

export class Placeholder {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

export class SQL {
  readonly queryChunks: unknown[];
  constructor(queryChunks: unknown[]) {
    this.queryChunks = queryChunks;
  }
}

export const isColumn = (value: unknown): value is LiteColumn =>
  typeof value === 'object' && value !== null && 'table' in value && typeof (value as { table: unknown }).table === 'object' && TABLE_NAME in ((value as { table: object }).table ?? {});

const isTable = (value: unknown): value is LiteTable => typeof value === 'object' && value !== null && TABLE_NAME in value;

export function sql(strings: TemplateStringsArray, ...params: unknown[]): SQL {
  const queryChunks: unknown[] = [];
  if (params.length > 0 || (strings.length > 0 && strings[0] !== '')) queryChunks.push(new StringChunk(strings[0] ?? ''));
  params.forEach((param, index) => queryChunks.push(param, new StringChunk(strings[index + 1] ?? '')));
  return new SQL(queryChunks);
}

sql.placeholder = (name: string) => new Placeholder(name);
sql.identifier = (value: string) => new Name(value);
sql.join = (chunks: unknown[], separator?: unknown) => {
  const result: unknown[] = [];
  chunks.forEach((chunk, index) => {
    if (index > 0 && separator !== undefined) result.push(separator);
    result.push(chunk);
  });
  return new SQL(result);
};

/** The SQL text and parameters (values, or Placeholders to fill per call), as drizzle's dialect renders them. */
export function toQuery(query: SQL, escapeName: (name: string) => string): { sql: string; params: unknown[] } {
  let text = '';
  const params: unknown[] = [];
  const add = (chunk: unknown): void => {
    if (chunk instanceof StringChunk) text += chunk.value;
    else if (chunk instanceof Name) text += escapeName(chunk.value);
    else if (chunk === undefined) return;
    else if (Array.isArray(chunk)) {
      text += '(';
      chunk.forEach((item, index) => {
        add(item);
        if (index < chunk.length - 1) text += ', ';
      });
      text += ')';
    } else if (chunk instanceof SQL) chunk.queryChunks.forEach(add);
    else if (isTable(chunk)) text += escapeName(chunk[TABLE_NAME]);
    else if (isColumn(chunk)) text += `${escapeName(chunk.table[TABLE_NAME])}.${escapeName(chunk.name)}`;
    else {
      // A Placeholder or a value: one parameter.
      text += '?';
      params.push(chunk);
    }
  };
  add(query);
  return { sql: text, params };
}
