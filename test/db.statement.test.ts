// How every query reaches D1 (src/db/statement.ts, src/db/execute.ts): a statement's SQL is
// rendered once and bound on exactly the session each call passes in, however calls on different
// sessions interleave; a missing value fails before anything is sent; runBatch and runOne give the
// rows back, retry D1's transient faults and give up with DatabaseUnavailableError.
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm/sql/sql';
import { describe, expect, it } from 'vitest';
import { findAccount, insertAccount } from '../src/db/accounts.ts';
import { findKeyByHash, listApiKeys } from '../src/db/api-keys.ts';
import { DatabaseUnavailableError, runBatch, runOne } from '../src/db/execute.ts';
import { accounts, type Account } from '../src/db/schema.ts';
import { statement, type Session } from '../src/db/statement.ts';
import { uniqueEmail } from './helpers/api.ts';
import { faultyD1, TRANSIENT_MESSAGE } from './helpers/faulty-d1.ts';
import { observedD1, type BoundStatement } from './helpers/observed-d1.ts';

const p = sql.placeholder;

async function newAccount(name = 'Statement Test'): Promise<Account> {
  const account = await insertAccount(env.DB, { name, email: uniqueEmail(), now: Date.now() });
  if (!account) throw new Error('account not inserted');
  return account;
}

const accountById = statement<{ id: number }>(() => sql`select * from ${accounts} where ${accounts.id} = ${p('id')}`);

/** Waits a macrotask, so that calls started one after another really are in flight together. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('statement', () => {
  it('binds each of many interleaved calls on the session it was given, with that call’s values', async () => {
    const owners = await Promise.all(Array.from({ length: 8 }, (_, i) => newAccount(`Owner ${i}`)));
    const sent: { handle: number; statement: BoundStatement }[] = [];
    const handles = owners.map((_, i) => observedD1((statement) => sent.push({ handle: i, statement })));

    // One "request" per handle, each several round trips (single statements and a batch) with
    // awaits in between, all started round-robin so their binds interleave.
    const request = async (i: number) => {
      const h = handles[i]!;
      const id = owners[i]!.id;
      await tick();
      const first = await findAccount(h, id);
      const keys = await listApiKeys(h, id);
      await tick();
      const [row] = await runOne(h, accountById(h, { id }));
      const missingKey = await findKeyByHash(h, `handle-${i}`);
      return { first, keys, name: row?.name, missingKey };
    };
    const results = await Promise.all(handles.map((_, i) => request(i)));

    results.forEach((result, i) => {
      expect(result).toEqual({ first: owners[i], keys: [], name: `Owner ${i}`, missingKey: null });
    });
    // 5 statements per request (listApiKeys sends two), each bound on its own handle only, and
    // every value bound on handle i is one of request i's.
    expect(sent).toHaveLength(8 * 5);
    for (let i = 0; i < 8; i++) {
      const mine = sent.filter((s) => s.handle === i).map((s) => s.statement.params);
      expect(mine).toEqual([[owners[i]!.id], [owners[i]!.id], [owners[i]!.id], [owners[i]!.id], [`handle-${i}`]]);
    }
    // The calls did interleave: the handles' binds are not in one block per handle.
    const order = sent.map((s) => s.handle);
    expect(order).not.toEqual([...order].sort((a, b) => a - b));
  });

  it('renders its SQL once, on first use, and reuses it for every session and value', async () => {
    let builds = 0;
    const echo = statement<{ n: number; text: string }>(() => {
      builds += 1;
      return sql`select ${p('n')} as n, ${p('text')} as text`;
    });
    expect(builds).toBe(0);

    const sent: BoundStatement[] = [];
    const sessions: Session[] = [observedD1((s) => sent.push(s)), observedD1((s) => sent.push(s)), env.DB];
    for (let n = 0; n < 6; n++) {
      const session = sessions[n % sessions.length]!;
      expect(await runOne(session, echo(session, { n, text: `t${n}` }))).toEqual([{ n, text: `t${n}` }]);
    }
    expect(builds).toBe(1);
    // The observed sessions saw one SQL text, with the values as bound parameters, never inlined.
    expect(new Set(sent.map((s) => s.sql))).toEqual(new Set(['select ? as n, ? as text']));
    expect(sent.map((s) => s.params)).toEqual([[0, 't0'], [1, 't1'], [3, 't3'], [4, 't4']]);
  });

  it('sends its SQL on one line, leaving quoted text as it was written', async () => {
    const sent: BoundStatement[] = [];
    const session = observedD1((s) => sent.push(s));
    // A template over several lines, with a line break and double spaces inside a string literal.
    const spread = statement<{ n: number }>(
      () => sql`select 'a
  b' as text,
        ${p('n')} as n`,
    );
    expect(await runOne(session, spread(session, { n: 1 }))).toEqual([{ text: 'a\n  b', n: 1 }]);
    expect(sent.map((s) => s.sql)).toEqual(["select 'a\n  b' as text, ? as n"]);
  });

  it('binds values as parameters, so SQL in a value is only text', async () => {
    const account = await newAccount();
    const byName = statement<{ name: string }>(() => sql`select ${accounts.id} as id from ${accounts} where ${accounts.name} = ${p('name')}`);
    expect(await runOne(env.DB, byName(env.DB, { name: "x' or '1'='1" }))).toEqual([]);
    expect(await runOne(env.DB, byName(env.DB, { name: account.name }))).toContainEqual({ id: account.id });
  });

  it('refuses a call without a value for one of its placeholders, sending nothing', () => {
    const sent: BoundStatement[] = [];
    const session = observedD1((s) => sent.push(s));
    const pair = statement<{ a: number; b: number }>(() => sql`select ${p('a')} as a, ${p('b')} as b`);
    expect(() => pair(session, { a: 1 } as unknown as { a: number; b: number })).toThrow('No value for placeholder "b" was provided');
    expect(sent).toEqual([]);
  });

  it('refuses an undefined value instead of binding it as something else', async () => {
    const one = statement<{ a: number | undefined }>(() => sql`select ${p('a')} as a`);
    // Refused before anything is bound (D1 would refuse it too): the call fails rather than sending NULL.
    await expect((async () => runOne(env.DB, one(env.DB, { a: undefined })))()).rejects.toThrow(/undefined/i);
  });
});

describe('runOne and runBatch', () => {
  it('runOne gives the rows of a read and the RETURNING rows of a write', async () => {
    const account = await newAccount('Rows');
    expect(await runOne(env.DB, accountById(env.DB, { id: account.id }))).toEqual([
      {
        id: account.id,
        name: 'Rows',
        email: account.email,
        created_at: account.createdAt,
        scenario_count: 0,
        change_id: account.changeId,
        api_version: '2026-11-21',
        previous_api_version: null,
        api_version_changed_at: null,
      },
    ]);
    const rename = statement<{ id: number; name: string }>(
      () => sql`update ${accounts} set name = ${p('name')} where ${accounts.id} = ${p('id')} returning name`,
    );
    expect(await runOne(env.DB, rename(env.DB, { id: account.id, name: 'Renamed' }))).toEqual([{ name: 'Renamed' }]);
    expect(await runOne(env.DB, accountById(env.DB, { id: 987_654_321 }))).toEqual([]);
  });

  it('runBatch gives the rows of each statement under the name it was sent with', async () => {
    const [a, b] = [await newAccount('Batch A'), await newAccount('Batch B')];
    const rows = await runBatch(env.DB, {
      second: accountById(env.DB, { id: b.id }),
      none: accountById(env.DB, { id: 987_654_321 }),
      first: accountById(env.DB, { id: a.id }),
    });
    expect(Object.keys(rows)).toEqual(['second', 'none', 'first']);
    expect({ second: rows.second.map((row) => row.name), none: rows.none, first: rows.first.map((row) => row.name) }).toEqual({
      second: ['Batch B'],
      none: [],
      first: ['Batch A'],
    });
  });

  it('runBatch is one transaction: a failing statement undoes the ones before it', async () => {
    const email = uniqueEmail();
    // No ON CONFLICT here: the second insert of the same address breaks the unique index.
    const insertStrict = statement<{ email: string }>(
      () => sql`insert into ${accounts} (name, email, created_at) values ('Strict', ${p('email')}, 1) returning id`,
    );
    await expect(runBatch(env.DB, { first: insertStrict(env.DB, { email }), again: insertStrict(env.DB, { email }) })).rejects.toThrow(/UNIQUE/);
    const byEmail = await env.DB.prepare('select count(*) as n from accounts where email = ?').bind(email).first<{ n: number }>();
    expect(byEmail?.n).toBe(0);
  });
});

describe('retries of transient D1 faults', () => {
  it('runOne tries again after faults before the statement ran, and gives the rows', async () => {
    const account = await newAccount('Retried');
    const d1 = faultyD1((n) => (n <= 2 ? 'before' : undefined));
    expect((await runOne(d1.db, accountById(d1.db, { id: account.id }))).map((r) => r.name)).toEqual(['Retried']);
    expect([d1.calls, d1.injected.before]).toEqual([3, 2]);
  });

  it('runBatch runs the same statements again after a reply lost past the commit', async () => {
    const email = uniqueEmail();
    const insertOnce = statement<{ email: string }>(
      () => sql`insert into ${accounts} (name, email, created_at) values ('Once', ${p('email')}, 1) on conflict do nothing returning id`,
    );
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    const { inserted: rows } = await runBatch(d1.db, { inserted: insertOnce(d1.db, { email }) });
    expect([d1.calls, d1.injected.after]).toEqual([2, 1]);
    // The second run met the first one's committed row: nothing inserted, so no RETURNING row.
    // Statements must recognise their own earlier commit (the workflows do, by their event id).
    expect(rows).toEqual([]);
    const count = await env.DB.prepare('select count(*) as n from accounts where email = ?').bind(email).first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it('recognises a transient fault given as the cause of another error', async () => {
    const account = await newAccount('Wrapped');
    const real = accountById(env.DB, { id: account.id });
    let tries = 0;
    const wrapped = new Proxy(real, {
      get: (target, prop) =>
        prop === 'all'
          ? () => (++tries === 1 ? Promise.reject(new Error('query failed', { cause: new Error(TRANSIENT_MESSAGE) })) : target.all())
          : Reflect.get(target, prop, target),
    });
    expect((await runOne(env.DB, wrapped)).map((r) => r.name)).toEqual(['Wrapped']);
    expect(tries).toBe(2);
  });

  it('does not retry an error that is not transient, and passes it on as it is', async () => {
    const account = await newAccount();
    const insertStrict = statement<{ email: string }>(() => sql`insert into ${accounts} (name, email, created_at) values ('Dup', ${p('email')}, 1)`);
    const d1 = faultyD1(() => undefined);
    const error = await runOne(d1.db, insertStrict(d1.db, { email: account.email })).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DatabaseUnavailableError);
    expect((error as Error).message).toMatch(/UNIQUE constraint failed/);
    expect(d1.calls).toBe(1);
  });

  it('gives up after 5 tries in about a second with DatabaseUnavailableError, the last fault as its cause', async () => {
    const d1 = faultyD1(() => 'before');
    const started = Date.now();
    const error = await runBatch(d1.db, { account: accountById(d1.db, { id: 1 }) }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(((error as Error).cause as Error).message).toBe(TRANSIENT_MESSAGE);
    expect(d1.calls).toBe(5);
    // Waits of at least 40, 80, 160 and 320 ms (execute.ts), and within its 2 s budget.
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(2500);
  });
});
