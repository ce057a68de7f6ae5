// How every query reaches D1: drizzle renders a statement's SQL once per isolate (on first use,
// so an isolate's start-up builds none), with named placeholders for its values; each call binds
// those values and runs the statement on the session it is given. No handle is held between
// calls, so a query can only ever run on the session its caller passed in.
// In the Worker (and the tests), `drizzle-orm/sql/sql` and the rest are src/db/drizzle-lite/ (its
// 3 KiB render the statements as written here, byte for byte as drizzle does):
// test/db.drizzle-lite.test.ts holds every statement defined with `statement()` against drizzle's
// own rendering under Node. Define statements at module level, once each.
import { Placeholder, type SQL } from 'drizzle-orm/sql/sql';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core/dialect';

/** The database binding, or one request's D1 session on it (the same prepare/batch surface). */
export type Session = D1Database | D1DatabaseSession;

/** A D1 row as D1 returns it: column names (snake_case) to values. */
export type RawRow = Record<string, unknown>;

/** A statement ready to bind: `(session, values) => D1PreparedStatement`. */
export type Statement<Values extends object> = (session: Session, values: Values) => D1PreparedStatement;

/**
 * drizzle's SQLite dialect with identifiers in backticks (`scenarios`.`token`), which SQLite reads
 * as it reads "double quotes". D1 receives a batch's statements as JSON, where every double quote
 * of the SQL text is escaped (`\"`), to write and to read: a save's batch held some 200 of them.
 * Counted with `npm run bench:instructions`, a save takes 1 % fewer instructions this way.
 * Identifiers stay quoted, so a column named like a keyword (idempotency_records.key) keeps working.
 */
class BacktickDialect extends SQLiteSyncDialect {
  override escapeName(name: string): string {
    return `\`${name.replaceAll('`', '``')}\``;
  }
}

/**
 * The SQL on one line: a line break in a statement's text (the templates span lines) reaches D1
 * as `\n` inside a JSON string, which V8 then decodes on its slow path for escaped strings, as it
 * did the double quotes. Quoted literals and identifiers are left as they are.
 */
function oneLine(text: string): string {
  return text.replace(/'(?:[^']|'')*'|`(?:[^`]|``)*`|\s*\n\s*/g, (match) => (match.startsWith("'") || match.startsWith('`') ? match : ' '));
}

/** A statement's SQL, and how to turn a call's values into its parameters. */
interface Rendered {
  sql: string;
  bind: (values: Record<string, unknown>) => unknown[];
}

/**
 * The SQL text and, per parameter, the placeholder it reads (or the value written into the
 * template), worked out once: drizzle's fillPlaceholders re-checks every parameter's class and
 * looks each name up twice on every call.
 */
function render(query: SQL): Rendered {
  const { sql, params } = new BacktickDialect().sqlToQuery(query);
  const names = params.map((param) => (param instanceof Placeholder ? param.name : undefined));
  return {
    sql: oneLine(sql),
    bind: (values) =>
      names.map((name, index) => {
        if (name === undefined) return params[index];
        const value = values[name];
        // Missing, or undefined: D1 would refuse undefined anyway, so nothing is sent either way.
        if (value === undefined) throw new Error(`No value for placeholder "${name}" was provided (undefined)`);
        return value;
      }),
  };
}

/**
 * Defines a statement. `build` runs once, the first time the statement is bound; the rendered SQL
 * and parameter list are kept (text that never changes, the same for every request).
 */
export function statement<Values extends object = Record<string, never>>(build: () => SQL): Statement<Values> {
  defined.push(build);
  let rendered: Rendered | undefined;
  return (session, values) => {
    rendered ??= render(build());
    return session.prepare(rendered.sql).bind(...rendered.bind(values as Record<string, unknown>));
  };
}

/** Every statement defined so far (module-level definitions: a fixed list per isolate). */
const defined: Array<() => SQL> = [];

/** A parameter of a rendered statement: a call's value by name, or a value written into the SQL. */
export type RenderedParam = { placeholder: string } | { value: unknown };

/** Every statement defined so far, rendered: for test/db.drizzle-lite.test.ts and scripts/sql-export.ts. */
export function renderDefinedStatements(): Array<{ sql: string; params: RenderedParam[] }> {
  return defined.map((build) => {
    const { sql, params } = new BacktickDialect().sqlToQuery(build());
    return {
      sql: oneLine(sql),
      params: params.map((param): RenderedParam => (param instanceof Placeholder ? { placeholder: param.name } : { value: param })),
    };
  });
}
