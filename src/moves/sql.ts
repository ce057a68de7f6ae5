// The SQL a move runs on one table (src/moves/tables.ts), written from its description once per
// isolate and table. Values always travel as parameters, except the moved account's id, an
// integer, where a lookup needs it once per row of a multi-row insert.
import type { MovedTable } from './tables.ts';

/** D1 takes at most 100 parameters a statement. */
export const MAX_PARAMS = 100;

/** The expression reading column `column` of `t` as the copy carries it (a parent's natural key for a parent's id). */
function readExpr(table: MovedTable, column: string): string {
  return table.parents?.[column] ? `p_${column}.${table.parents[column]!.key}` : `t.${column}`;
}

/** The expression writing value `value` (SQL) into column `column` (a parent's id looked up by its key). */
export function writeExpr(table: MovedTable, column: string, value: string, accountId: number): string {
  const parent = table.parents?.[column];
  if (!parent) return value;
  const scope = parent.scoped ? ` and account_id = ${Math.trunc(accountId)}` : '';
  return `(select id from ${parent.table} where ${parent.key} = ${value}${scope})`;
}

const joins = (table: MovedTable) =>
  Object.entries(table.parents ?? {})
    .map(([column, parent]) => ` left join ${parent.table} as p_${column} on p_${column}.id = t.${column}`)
    .join('');

const rowValue = (exprs: string[]) => (exprs.length === 1 ? exprs[0]! : `(${exprs.join(', ')})`);
const marks = (n: number) => rowValue(Array.from({ length: n }, () => '?'));

/**
 * A page of the account's rows, as the copy carries them, in natural-key order after a cursor
 * (`after`: one `?` per key column) and up to an upper bound (`upTo`), or in the order of the
 * table's own ids (`bySurrogate`: for the copy, which keeps that order; the id rides along as `#order`).
 */
export function selectPage(table: MovedTable, options: { after: boolean; upTo: boolean; bySurrogate?: boolean; limit: boolean }): string {
  const keyExprs = table.key.map((column) => readExpr(table, column));
  const order = options.bySurrogate ? [`t.${table.surrogate}`] : keyExprs;
  const conditions = [table.where];
  if (options.after) conditions.push(`${rowValue(order)} > ${marks(order.length)}`);
  if (options.upTo) conditions.push(`${rowValue(order)} <= ${marks(order.length)}`);
  const columns = table.columns.map((column) => `${readExpr(table, column)} as ${column}`);
  if (options.bySurrogate) columns.push(`t.${table.surrogate} as "#order"`);
  return `select ${columns.join(', ')} from ${table.name} as t${joins(table)} where ${conditions.join(' and ')} order by ${order.join(', ')}${options.limit ? ' limit ?' : ''}`;
}

/** How many rows one multi-row insert of this table carries (D1's parameter limit). */
export function rowsPerInsert(table: MovedTable): number {
  return Math.max(1, Math.floor(MAX_PARAMS / table.columns.length));
}

/**
 * Inserts `rows` rows unless a row with the same natural key is there already, so a page copied
 * twice (a re-run after a lost reply) is copied once. Rows go in in the order given: the new
 * database numbers them in that order.
 */
export function insertRows(table: MovedTable, rows: number, accountId: number): string {
  const values = Array.from({ length: rows }, () => marks(table.columns.length)).join(', ');
  const read = (column: string) => writeExpr(table, column, `v.column${table.columns.indexOf(column) + 1}`, accountId);
  const matches = table.key.map((column) => `x.${column} is ${read(column)}`).join(' and ');
  // A child whose parent is not copied yet (made while the copy ran) waits for the catch-up.
  const parentsThere = Object.keys(table.parents ?? {}).map((column) => ` and (v.column${table.columns.indexOf(column) + 1} is null or ${read(column)} is not null)`);
  // A one-column VALUES row is a bare value: `(?)`, not a row value.
  const valueList = table.columns.length === 1 ? Array.from({ length: rows }, () => '(?)').join(', ') : values;
  return `insert into ${table.name} (${table.columns.join(', ')}) select ${table.columns.map(read).join(', ')} from (values ${valueList}) as v
    where not exists (select 1 from ${table.name} as x where ${matches})${parentsThere.join('')}`;
}

const keyMatch = (table: MovedTable, accountId: number) => table.key.map((column) => `${column} is ${writeExpr(table, column, '?', accountId)}`).join(' and ');

/** Sets every column of the row with that natural key: its values, then its key's. */
export function updateRow(table: MovedTable, accountId: number): string {
  const sets = table.columns.filter((column) => !table.key.includes(column)).map((column) => `${column} = ${writeExpr(table, column, '?', accountId)}`);
  return `update ${table.name} set ${sets.join(', ')} where ${keyMatch(table, accountId)}`;
}

/** The columns `updateRow` sets, in its parameters' order. */
export const updatedColumns = (table: MovedTable) => table.columns.filter((column) => !table.key.includes(column));

/** Deletes the row with that natural key. */
export function deleteRow(table: MovedTable, accountId: number): string {
  return `delete from ${table.name} where ${keyMatch(table, accountId)}`;
}

/** Deletes up to `?` of the account's rows (the clean-up of the database it left, in steps). */
export function deleteSome(table: MovedTable): string {
  return `delete from ${table.name} where rowid in (select t.rowid from ${table.name} as t where ${table.where} limit ?)`;
}
