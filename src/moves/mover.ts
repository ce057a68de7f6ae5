// Moving an account whole to another database while it keeps working (docs/decisions.md, "Moving
// an account"), the way Vitess and Citus move a shard: copy in batches while it is live, catch up,
// pause its writes for a moment, copy the last differences, verify that the new copy equals the
// old, switch (the old database forwards; the directory names the new one), then remove the old
// rows in batches. Each step is small (D1 allows 1,000 queries an invocation) and records where it
// got to in the old database's `account_moves` row, so the CLI and the admin API drive a move by
// calling `moveAccount` until it is done, and a re-run after any failure carries on from there.
// Until the switch every reader is served by the old copy; after it, by the new one; the switch
// itself is one batch in the old database. No Hono here.
import { runBatch, runOne, type Batch } from '../db/execute.ts';
import { databaseName, databaseOfId } from '../db/databases.ts';
import type { RawRow, Session } from '../db/statement.ts';
import { deleteRow, deleteSome, insertRows, rowsPerInsert, selectPage, updatedColumns, updateRow } from './sql.ts';
import { MOVED_TABLES, type MovedTable } from './tables.ts';

/** Rows a page reads. */
const PAGE = 400;
/** Rows one clean-up statement deletes. */
const DELETE_CHUNK = 500;
/** Verifying passes in one write pause before the move gives up (the writes stay paused; a re-run tries again). */
const MAX_VERIFY_ATTEMPTS = 3;

export type MovePhase = 'copy' | 'catch_up' | 'pause' | 'sync' | 'switch' | 'clean_up' | 'done';

/** Where a move has got to, kept (as JSON) in the old database's `account_moves` row. */
interface Progress {
  phase: MovePhase;
  /** The table the phase is on (index in MOVED_TABLES). */
  table: number;
  /** Within that table: the last copied `#order` (copy) or natural key (sync, verify). */
  cursor: unknown[] | null;
  /** Per table, the last `#order` copied: a catch-up copies on from there. */
  copied: Record<string, unknown[]>;
  /** The verifying sync's running counts and digests, per side and table. */
  digests?: { old: TableDigest[]; new: TableDigest[] };
  attempts: number;
  /** When writes were paused (ms), and when they resumed. */
  pausedAt?: number;
  resumedAt?: number;
  /** Round trips the move has made so far; and when writes were paused, and resumed. */
  roundTrips: number;
  pausedAtRoundTrip?: number;
  resumedAtRoundTrip?: number;
}

export interface TableDigest {
  rows: number;
  digest: string;
}

/** What a call reports: where the move is, and the figures of a finished one. */
export interface MoveReport {
  accountId: number;
  from: number;
  to: number;
  phase: MovePhase;
  done: boolean;
  /** Writes were refused (503) for this long, once resumed (ms), and over this many round trips. */
  pauseMs: number | null;
  pauseRoundTrips: number | null;
  roundTrips: number;
  /** Per table, the rows of the new copy (once verified). */
  rows: Record<string, number> | null;
}

/** A report as the admin API answers it and the CLI prints it (snake_case, databases by binding name). */
export function moveReportJson(report: MoveReport) {
  return {
    account_id: report.accountId,
    from: databaseName(report.from),
    to: databaseName(report.to),
    phase: report.phase,
    done: report.done,
    pause_ms: report.pauseMs,
    pause_round_trips: report.pauseRoundTrips,
    round_trips: report.roundTrips,
    rows: report.rows && Object.entries(report.rows).map(([table, rows]) => ({ table, rows })),
  };
}

/** A move that cannot be made as asked (the CLI and the admin API show the message). */
export class MoveRefusedError extends Error {
  readonly reason: 'not_found' | 'conflict';

  constructor(message: string, reason: 'not_found' | 'conflict') {
    super(message);
    this.name = 'MoveRefusedError';
    this.reason = reason;
  }
}

/** Statements a call may still send (D1: 1,000 queries an invocation; the admin API passes what it can spend). */
class Budget {
  left: number;
  /** Statements sent so far by this call. */
  used = 0;

  constructor(left: number) {
    this.left = left;
  }

  spend(n: number): void {
    this.left -= n;
    this.used += n;
  }
  enough(n: number): boolean {
    return this.left >= n;
  }
}

interface Context {
  dbs: Session[];
  accountId: number;
  from: number;
  to: number;
  progress: Progress;
  budget: Budget;
  now: () => number;
}

const named = (statements: D1PreparedStatement[]): Batch => Object.fromEntries(statements.map((s, i) => [`s${i}`, s]));

async function batch(ctx: Context, db: Session, statements: D1PreparedStatement[]): Promise<RawRow[][]> {
  if (statements.length === 0) return [];
  ctx.budget.spend(statements.length);
  ctx.progress.roundTrips += 1;
  const rows = await runBatch(db, named(statements));
  return statements.map((_, i) => rows[`s${i}`] ?? []);
}

async function one(ctx: Context, db: Session, statement: D1PreparedStatement): Promise<RawRow[]> {
  return (await batch(ctx, db, [statement]))[0]!;
}

// ---- Where an account is ----

interface MoveRow {
  database: number;
  state: 'copying' | 'paused' | 'moved' | 'arrived';
  progress: string | null;
}

const moveRowOf = async (db: Session, accountId: number): Promise<MoveRow | null> =>
  ((await runOne(db, db.prepare('select database, state, progress from account_moves where account_id = ?').bind(accountId)))[0] as MoveRow | undefined) ?? null;

/**
 * The database serving the account, and the move under way (its old database and where it goes),
 * following forwardings from the database its id names. Null when no bound database holds it.
 */
export async function locateAccount(dbs: Session[], accountId: number): Promise<{ home: number; pending: { from: number; to: number } | null } | null> {
  let at = databaseOfId(accountId);
  for (let hop = 0; hop <= dbs.length; hop++) {
    const db = dbs[at];
    if (!db) return null;
    const row = await moveRowOf(db, accountId);
    if (row?.state === 'copying' || row?.state === 'paused') return { home: at, pending: { from: at, to: row.database } };
    if (row?.state === 'moved') {
      const progress = row.progress ? (JSON.parse(row.progress) as Progress) : null;
      if (progress && progress.phase !== 'done') return { home: row.database, pending: { from: at, to: row.database } };
      at = row.database;
      continue;
    }
    const [found] = await runOne(db, db.prepare('select 1 as found from accounts where id = ?').bind(accountId));
    return found ? { home: at, pending: null } : null;
  }
  return null;
}

// ---- Reading pages ----

const keyOf = (table: MovedTable, row: RawRow) => table.key.map((column) => row[column]);
const valuesOf = (table: MovedTable, row: RawRow) => table.columns.map((column) => row[column] ?? null);
const sameKey = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const compareKeys = (a: unknown[], b: unknown[]): number => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
};

async function readPage(
  ctx: Context,
  db: Session,
  table: MovedTable,
  options: { after: unknown[] | null; upTo?: unknown[] | null; bySurrogate?: boolean; limit?: number },
): Promise<RawRow[]> {
  const text = selectPage(table, { after: options.after !== null, upTo: options.upTo != null, bySurrogate: options.bySurrogate, limit: options.limit !== undefined });
  const params: unknown[] = [ctx.accountId, ...(options.after ?? []), ...(options.upTo ?? [])];
  if (options.limit !== undefined) params.push(options.limit);
  return one(ctx, db, db.prepare(text).bind(...params));
}

/** The statements inserting `rows` (in their order) where no row of the same key is. */
function inserts(ctx: Context, db: Session, table: MovedTable, rows: RawRow[]): D1PreparedStatement[] {
  const per = rowsPerInsert(table);
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    statements.push(db.prepare(insertRows(table, chunk.length, ctx.accountId)).bind(...chunk.flatMap((row) => valuesOf(table, row))));
  }
  return statements;
}

// ---- The phases ----

const target = (ctx: Context) => ctx.dbs[ctx.to]!;
const source = (ctx: Context) => ctx.dbs[ctx.from]!;

/**
 * Copies pages of `table` in the order of its own ids from the last one copied, while the account
 * is live: true once the table is copied to its end.
 */
async function copyTable(ctx: Context, table: MovedTable): Promise<boolean> {
  const bySurrogate = table.surrogate !== undefined;
  while (ctx.budget.enough(3)) {
    const after = ctx.progress.copied[table.name] ?? null;
    const limit = Math.min(PAGE, (ctx.budget.left - 2) * rowsPerInsert(table));
    const rows = await readPage(ctx, source(ctx), table, { after, bySurrogate, limit });
    await batch(ctx, target(ctx), inserts(ctx, target(ctx), table, rows));
    if (rows.length > 0) ctx.progress.copied[table.name] = bySurrogate ? [rows.at(-1)!['#order']] : keyOf(table, rows.at(-1)!);
    if (rows.length < limit) return true;
  }
  return false;
}

/**
 * Makes the new copy of `table` equal to the old one, page by page in natural-key order from the
 * progress's cursor: the rows made since the copy first (copied on in the order of their ids, so
 * the new database numbers them in order), then each page of the old compared with the same range
 * of the new: a row changed is set, one missing is inserted, one gone is deleted. True once done.
 * `verify` (in the write pause, where nothing changes the old copy any more): a page that needed
 * changes is read again from the new copy, and both sides' pages are counted and digested
 * (`addDigest`), so the pass that copies the last differences also verifies the whole copy.
 */
async function syncTable(ctx: Context, index: number, verify: boolean): Promise<boolean> {
  const table = MOVED_TABLES[index]!;
  if (ctx.progress.cursor === null && !(await copyTable(ctx, table))) return false;
  const update = updateRow(table, ctx.accountId);
  const remove = deleteRow(table, ctx.accountId);
  while (ctx.budget.enough(4)) {
    const after = ctx.progress.cursor?.length ? ctx.progress.cursor : null;
    // A page's differences cost a statement each at most: a page no longer than the budget left.
    const limit = Math.min(PAGE, ctx.budget.left - 3);
    const old = await readPage(ctx, source(ctx), table, { after, limit });
    const upTo = old.length === limit ? keyOf(table, old.at(-1)!) : null;
    const copy = await readPage(ctx, target(ctx), table, { after, upTo });
    const statements: D1PreparedStatement[] = [];
    const missing: RawRow[] = [];
    let j = 0;
    for (const row of old) {
      const key = keyOf(table, row);
      while (j < copy.length && compareKeys(keyOf(table, copy[j]!), key) < 0) statements.push(target(ctx).prepare(remove).bind(...keyOf(table, copy[j++]!)));
      const there = j < copy.length && sameKey(keyOf(table, copy[j]!), key) ? copy[j++]! : null;
      if (!there) missing.push(row);
      else if (JSON.stringify(valuesOf(table, there)) !== JSON.stringify(valuesOf(table, row))) {
        statements.push(target(ctx).prepare(update).bind(...updatedColumns(table).map((column) => row[column] ?? null), ...key));
      }
    }
    while (j < copy.length) statements.push(target(ctx).prepare(remove).bind(...keyOf(table, copy[j++]!)));
    statements.push(...inserts(ctx, target(ctx), table, missing));
    await batch(ctx, target(ctx), statements);
    if (verify) {
      const now = statements.length === 0 ? copy : await readPage(ctx, target(ctx), table, { after, upTo });
      await addDigest(ctx, index, old, now);
    }
    if (upTo === null) return true;
    ctx.progress.cursor = upTo;
  }
  return false;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Counts and digests (a chained SHA-256) a page of `table`'s rows of the account on each side. */
async function addDigest(ctx: Context, index: number, old: RawRow[], copy: RawRow[]): Promise<void> {
  const table = MOVED_TABLES[index]!;
  const digests = (ctx.progress.digests ??= { old: [], new: [] });
  for (const [side, rows] of [['old', old], ['new', copy]] as const) {
    const running = (digests[side][index] ??= { rows: 0, digest: '' });
    running.rows += rows.length;
    running.digest = await sha256(running.digest + JSON.stringify(rows.map((row) => valuesOf(table, row))));
  }
}

/** Counts and digests a table kept by triggers (never copied) on both sides, page by page. True once done. */
async function digestTable(ctx: Context, index: number): Promise<boolean> {
  const table = MOVED_TABLES[index]!;
  while (ctx.budget.enough(3)) {
    const after = ctx.progress.cursor?.length ? ctx.progress.cursor : null;
    const old = await readPage(ctx, source(ctx), table, { after, limit: PAGE });
    const upTo = old.length === PAGE ? keyOf(table, old.at(-1)!) : null;
    await addDigest(ctx, index, old, await readPage(ctx, target(ctx), table, { after, upTo }));
    if (upTo === null) return true;
    ctx.progress.cursor = upTo;
  }
  return false;
}

/** Walks `tables` from the progress's table and cursor with `work`; true once every table is done. */
async function eachTable(ctx: Context, pick: (table: MovedTable) => boolean, work: (index: number) => Promise<boolean>): Promise<boolean> {
  for (; ctx.progress.table < MOVED_TABLES.length; ctx.progress.table++, ctx.progress.cursor = null) {
    if (!pick(MOVED_TABLES[ctx.progress.table]!)) continue;
    if (!(await work(ctx.progress.table))) return false;
  }
  return true;
}

const live = (table: MovedTable) => !table.late && !table.derived;
const copied = (table: MovedTable) => !table.derived;

function next(ctx: Context, phase: MovePhase): void {
  ctx.progress.phase = phase;
  ctx.progress.table = 0;
  ctx.progress.cursor = null;
}

/** Sets the account's move row in database `db`. */
const setMoveRow = (db: Session, accountId: number, database: number, state: MoveRow['state'], progress: string | null, now: number) =>
  db
    .prepare(
      `insert into account_moves (account_id, database, state, progress, started_at, updated_at) values (?, ?, ?, ?, ?, ?)
       on conflict (account_id) do update set database = excluded.database, state = excluded.state, progress = excluded.progress, updated_at = excluded.updated_at`,
    )
    .bind(accountId, database, state, progress, now, now);

async function saveProgress(ctx: Context): Promise<void> {
  await one(ctx, source(ctx), source(ctx).prepare('update account_moves set progress = ?, updated_at = ? where account_id = ?').bind(JSON.stringify(ctx.progress), ctx.now(), ctx.accountId));
}

/** The write pause: from this batch on, no write of the account commits in the old database (auth/keyed.ts answers 503). */
async function pause(ctx: Context): Promise<void> {
  ctx.progress.pausedAt ??= ctx.now();
  ctx.progress.digests = { old: [], new: [] };
  ctx.progress.pausedAtRoundTrip ??= ctx.progress.roundTrips;
  next(ctx, 'sync');
  // Where it arrives, a key that names that database (of an earlier stay there) must not write to
  // the copy either; its forwarding (if any) still names the old database until the switch.
  await one(
    ctx,
    target(ctx),
    target(ctx)
      .prepare(
        `insert into account_moves (account_id, database, state, started_at, updated_at) values (?, ?, 'paused', ?, ?)
         on conflict (account_id) do update set state = 'paused', updated_at = excluded.updated_at`,
      )
      .bind(ctx.accountId, ctx.from, ctx.now(), ctx.now()),
  );
  await one(ctx, source(ctx), setMoveRow(source(ctx), ctx.accountId, ctx.to, 'paused', JSON.stringify(ctx.progress), ctx.now()));
}

/**
 * The switch, in the old database, one batch: the account is `moved` (its forwarding), what names
 * the old database (its keys, sessions, share links) is kept as a forwarding and removed, so from
 * this commit on nothing reads the old copy; then the new database takes the account (`arrived`),
 * the directory names it, and every database the account left earlier forwards here.
 */
async function switchOver(ctx: Context): Promise<void> {
  const old = source(ctx);
  const refs = [
    `insert or ignore into moved_refs (ref, account_id, key_id) select key_hash, account_id, id from api_keys where account_id = ?1`,
    `insert or ignore into moved_refs (ref, account_id) select secret_hash, account_id from share_links where account_id = ?1`,
    `insert or ignore into moved_refs (ref, account_id) select id_hash, account_id from dashboard_sessions where account_id = ?1`,
    `delete from dashboard_sessions where account_id = ?1`,
    `delete from share_links where account_id = ?1`,
    `delete from api_keys where account_id = ?1`,
  ].map((text) => old.prepare(text).bind(ctx.accountId));
  // Idempotent: run again (a re-run after a failure below), it finds nothing more to keep or remove.
  ctx.progress.resumedAt ??= ctx.now();
  ctx.progress.resumedAtRoundTrip ??= ctx.progress.roundTrips + 1;
  await batch(ctx, old, [...refs, setMoveRow(old, ctx.accountId, ctx.to, 'moved', JSON.stringify(ctx.progress), ctx.now())]);
  const arrived = target(ctx);
  await batch(ctx, arrived, [
    setMoveRow(arrived, ctx.accountId, ctx.to, 'arrived', null, ctx.now()),
    arrived.prepare('delete from moved_refs where account_id = ?').bind(ctx.accountId),
  ]);
  // The directory (first database): the account's address and its members', unless a member still
  // belongs to another account of the old database (a session names one database: they sign in there).
  const emails = await one(
    ctx,
    arrived,
    arrived
      .prepare(`select email from accounts where id = ?1 union select email from dashboard_members where account_id = ?1`)
      .bind(ctx.accountId),
  );
  const stays = await one(
    ctx,
    old,
    old.prepare(`select distinct lower(email) as email from dashboard_members where account_id <> ?1 and lower(email) in (select value from json_each(?2))`).bind(
      ctx.accountId,
      JSON.stringify(emails.map((row) => String(row.email).toLowerCase())),
    ),
  );
  const staying = new Set(stays.map((row) => row.email));
  const directory = ctx.dbs[0]!;
  await batch(
    ctx,
    directory,
    emails
      .filter((row) => !staying.has(String(row.email).toLowerCase()))
      .map((row) => directory.prepare('update account_directory set database = ? where lower(email) = lower(?) and database = ?').bind(ctx.to, row.email, ctx.from)),
  );
  for (const [index, db] of ctx.dbs.entries()) {
    if (index === ctx.to || index === ctx.from) continue;
    await one(ctx, db, db.prepare(`update account_moves set database = ? where account_id = ? and state = 'moved'`).bind(ctx.to, ctx.accountId));
  }
  next(ctx, 'clean_up');
}

/** Removes the old copy's rows, children first (the tables in reverse), a chunk a statement. True once none is left. */
async function cleanUp(ctx: Context): Promise<boolean> {
  const old = source(ctx);
  const tables = MOVED_TABLES.filter(copied).reverse();
  for (; ctx.progress.table < tables.length; ctx.progress.table++) {
    const statement = `${deleteSome(tables[ctx.progress.table]!)} returning 1 as gone`;
    for (;;) {
      if (!ctx.budget.enough(2)) return false;
      const [result] = await batch(ctx, old, [old.prepare(statement).bind(ctx.accountId, DELETE_CHUNK)]);
      if ((result?.length ?? 0) < DELETE_CHUNK) break;
    }
  }
  return true;
}

function report(ctx: Context): MoveReport {
  const { progress } = ctx;
  const done = progress.phase === 'done';
  const digests = progress.digests?.new;
  return {
    accountId: ctx.accountId,
    from: ctx.from,
    to: ctx.to,
    phase: progress.phase,
    done,
    pauseMs: progress.pausedAt !== undefined && progress.resumedAt !== undefined ? progress.resumedAt - progress.pausedAt : null,
    pauseRoundTrips:
      progress.pausedAtRoundTrip !== undefined && progress.resumedAtRoundTrip !== undefined ? progress.resumedAtRoundTrip - progress.pausedAtRoundTrip : null,
    roundTrips: progress.roundTrips,
    rows: digests ? Object.fromEntries(MOVED_TABLES.map((table, i) => [table.name, digests[i]?.rows ?? 0])) : null,
  };
}

/**
 * Moves account `accountId` to database `to` (its index), or carries on with its move, sending at
 * most about `budget` statements; call again until `done`. Moving an account where it already is
 * reports done and changes nothing.
 */
export async function moveAccount(dbs: Session[], input: { accountId: number; to: number; budget?: number; now?: () => number }): Promise<MoveReport> {
  const { accountId, to } = input;
  if (!dbs[to]) throw new MoveRefusedError(`No database ${to} is bound`, 'not_found');
  const where = await locateAccount(dbs, accountId);
  if (!where) throw new MoveRefusedError(`No account with id ${accountId}`, 'not_found');
  if (where.pending && where.pending.to !== to) {
    throw new MoveRefusedError(`Account ${accountId} is being moved to database ${where.pending.to}: finish that move first`, 'conflict');
  }
  const from = where.pending?.from ?? where.home;
  const now = input.now ?? Date.now;
  const row = await moveRowOf(dbs[from]!, accountId);
  const progress: Progress =
    row?.progress && where.pending ? (JSON.parse(row.progress) as Progress) : { phase: 'copy', table: 0, cursor: null, copied: {}, attempts: 0, roundTrips: 0 };
  const ctx: Context = { dbs, accountId, from, to, progress, budget: new Budget(input.budget ?? Number.POSITIVE_INFINITY), now };
  if (!where.pending && where.home === to) {
    return { accountId, from: to, to, phase: 'done', done: true, pauseMs: null, pauseRoundTrips: null, roundTrips: 0, rows: null };
  }
  if (!where.pending) await one(ctx, source(ctx), setMoveRow(source(ctx), accountId, to, 'copying', JSON.stringify(progress), now()));

  for (let used = -1; ctx.budget.enough(1) && progress.phase !== 'done' && used !== ctx.budget.used; ) {
    // A step that could not even start (too little budget left for it) ends the call.
    used = ctx.budget.used;
    const before = JSON.stringify(progress);
    switch (progress.phase) {
      case 'copy':
        if (await eachTable(ctx, live, async (i) => copyTable(ctx, MOVED_TABLES[i]!))) next(ctx, 'catch_up');
        break;
      case 'catch_up':
        if (await eachTable(ctx, live, async (i) => syncTable(ctx, i, false))) next(ctx, 'pause');
        break;
      case 'pause':
        await pause(ctx);
        break;
      case 'sync': {
        if (!(await eachTable(ctx, () => true, (i) => (MOVED_TABLES[i]!.derived ? digestTable(ctx, i) : syncTable(ctx, i, true))))) break;
        if (JSON.stringify(progress.digests!.old) === JSON.stringify(progress.digests!.new)) next(ctx, 'switch');
        else {
          // Something wrote to the old copy after its page was compared (the pause holds the API's writes, not every background one).
          progress.attempts += 1;
          if (progress.attempts >= MAX_VERIFY_ATTEMPTS) {
            await saveProgress(ctx);
            throw new Error(`The copy of account ${accountId} still differs after ${progress.attempts} passes; its writes stay paused until a re-run`);
          }
          next(ctx, 'sync');
          progress.digests = { old: [], new: [] };
        }
        break;
      }
      case 'switch':
        await switchOver(ctx);
        break;
      case 'clean_up':
        if (await cleanUp(ctx)) next(ctx, 'done');
        break;
    }
    if (JSON.stringify(progress) !== before) await saveProgress(ctx);
  }
  return report(ctx);
}
