// Moving an account to another database (docs/decisions.md, "Moving an account"; src/moves/): the
// account keeps working while it moves (reads never fail, writes at most briefly 503 with
// Retry-After), nothing is lost or duplicated, its keys, dashboard sessions and share links keep
// working (one more round trip for what names the old database), the old rows go only after the
// copy is verified, and D1 faults during a move leave the old or the new copy whole for a re-run
// to finish.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { apiKeyDatabase } from '../src/auth/api-key.ts';
import { databaseOfSecret } from '../dashboard/src/session.ts';
import { readDatabases } from '../src/env.ts';
import { locateAccount, moveAccount } from '../src/moves/mover.ts';
import { MOVED_TABLES, NOT_MOVED } from '../src/moves/tables.ts';
import { admin, api, createAccountWithKey, createAccountWithKeyOn, scenarioData } from './helpers/api.ts';
import { databaseName, databaseOfId } from '../src/db/databases.ts';
import { browser, shownKey, signIn } from './helpers/dashboard.ts';
import { faultyD1, seededRandom } from './helpers/faulty-d1.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

const databases = () => readDatabases(env);

/** Every row of the account, per table, as the move compares them (natural keys, no per-database ids). */
async function rowsOf(database: number, accountId: number): Promise<Record<string, unknown[]>> {
  const db = databases()[database]!;
  const out: Record<string, unknown[]> = {};
  const { selectPage } = await import('../src/moves/sql.ts');
  for (const table of MOVED_TABLES) {
    const { results } = await db.prepare(selectPage(table, { after: false, upTo: false, limit: false })).bind(accountId).all();
    // The webhook queue's consumer marks events dispatched in the background, whenever it runs.
    out[table.name] = table.name === 'events' ? results.map(({ dispatched_at: _, ...event }) => event) : results;
  }
  return out;
}

async function countsOf(database: number, accountId: number): Promise<number> {
  const rows = await rowsOf(database, accountId);
  return Object.values(rows).reduce((n, list) => n + list.length, 0);
}

/** An account on `database` with scenarios (saved, so with revisions), an event trail, a webhook endpoint, a share link and a dashboard session. */
async function populated(database: number | 'any', scenarios = 6, options: { webhook?: boolean } = {}) {
  const { account, key, keyId } = database === 'any' ? await createAccountWithKey() : await createAccountWithKeyOn(database);
  const tokens: string[] = [];
  for (let i = 0; i < scenarios; i++) {
    const created = await api(key).post('/scenarios', { scenarioData: scenarioData({ year: 2024 + (i % 3) }) });
    expect(created.status, created.text).toBe(201);
    const token = created.body.data.scenario.token as string;
    tokens.push(token);
    const saved = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025, state_id: 48 }) });
    expect(saved.status, saved.text).toBe(200);
  }
  const link = await api(key).post(`/scenarios/${tokens[0]}/share_links`, {});
  expect(link.status, link.text).toBe(201);
  if (options.webhook !== false) {
    const endpoint = await api(key).post('/webhook_endpoints', { url: 'https://hooks.example.com/in', event_types: ['scenario.deleted'] });
    expect(endpoint.status, endpoint.text).toBe(201);
  }
  const user = await signIn(account.email);
  return { account, key, keyId, tokens, shareUrl: new URL(link.body.data?.url ?? link.body.url), user };
}

describe('moving an account', () => {
  it('names every table D1 has: each is moved or says why not, with the columns D1 has', async () => {
    const { results } = await env.DB.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_%' escape '\\' and name not like 'd1_%'`).all<{ name: string }>();
    const named = [...MOVED_TABLES.map((t) => t.name), ...Object.keys(NOT_MOVED)].sort();
    expect(named).toEqual(results.map((r) => r.name).sort());
    for (const table of MOVED_TABLES) {
      const { results: columns } = await env.DB.prepare(`select name, hidden from pragma_table_xinfo(?)`).bind(table.name).all<{ name: string; hidden: number }>();
      const stored = columns.filter((c) => c.hidden === 0).map((c) => c.name);
      expect([...table.columns, ...(table.surrogate ? [table.surrogate] : [])].sort(), table.name).toEqual(stored.sort());
    }
  });

  it('moves an account whole: every row, its keys (the old one forwarded, one more round trip), its sessions and share links; the old rows go', async () => {
    const { account, key, tokens, shareUrl, user } = await populated(0);
    const before = await rowsOf(0, account.id);
    const report = await moveAccount(databases(), { accountId: account.id, to: 2 });
    expect(report).toMatchObject({ done: true, from: 0, to: 2, phase: 'done' });
    expect(report.pauseMs).toBeGreaterThanOrEqual(0);
    expect(await rowsOf(2, account.id)).toEqual(before);
    expect(await countsOf(0, account.id)).toBe(0);
    expect(await locateAccount(databases(), account.id)).toEqual({ home: 2, pending: null });

    // The old key names database 0: one more round trip, then served by database 2.
    expect(apiKeyDatabase(key)).toBe(0);
    await roundTripsOf(key, 'GET', '/me');
    expect(await roundTripsOf(key, 'GET', `/scenarios/${tokens[1]}`)).toEqual({ status: 200, calls: 2 });
    const write = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    expect(write.status).toBe(201);
    expect(await databases()[2]!.prepare('select count(*) as n from scenarios where account_id = ?').bind(account.id).first('n')).toBe(tokens.length + 1);
    // A rolled key names the new database: one round trip again.
    const rolled = await admin().post(`/admin/keys/${(await admin().get(`/admin/accounts/${account.id}/keys`)).body.data[0].id}/roll`, {});
    expect(rolled.status, rolled.text).toBe(201);
    expect(apiKeyDatabase(rolled.body.key)).toBe(2);
    await roundTripsOf(rolled.body.key, 'GET', '/me');
    expect(await roundTripsOf(rolled.body.key, 'GET', `/scenarios/${tokens[1]}`)).toEqual({ status: 200, calls: 1 });

    // The share link (it names database 0) opens the scenario from database 2.
    const shared = await api().get(shareUrl.pathname, { Accept: 'application/json' });
    expect(shared.status, shared.text).toBe(200);
    // The dashboard session (it names database 0) still shows the account's keys.
    expect(databaseOfSecret(user.cookie)).toBe(0);
    const page = await user.get('/dashboard/keys');
    expect(page.status).toBe(200);
    expect(page.text).toContain(account.email);
    // A new sign-in goes to database 2.
    const again = await signIn(account.email);
    expect(databaseOfSecret(again.cookie)).toBe(2);

    // Moving it where it is changes nothing.
    expect(await moveAccount(databases(), { accountId: account.id, to: 2 })).toMatchObject({ done: true, roundTrips: 0 });
  }, 30_000);

  it('moves an account while clients read and write it: no read fails, no write is lost or doubled, writes at most briefly 503 with Retry-After', async () => {
    const { account, key, tokens } = await populated(1, 8);
    const years = new Map<string, number>(tokens.map((t) => [t, 2025]));
    let moving = true;
    const tally = { reads: 0, writes: 0, paused: 0 };
    const failures: string[] = [];

    /** A write as a client makes it: on 503 it waits Retry-After (shortened here) and sends it again, with the same Idempotency-Key for a create. */
    async function write(send: () => Promise<{ status: number; headers: Headers; text: string }>, ok: number): Promise<void> {
      for (let tries = 0; tries < 5000; tries++) {
        const res = await send();
        if (res.status === ok) {
          tally.writes += 1;
          return;
        }
        if (res.status !== 503 || !/^[1-9][0-9]*$/.test(res.headers.get('Retry-After') ?? '')) {
          failures.push(`write ${res.status} ${res.text.slice(0, 200)}`);
          return;
        }
        // (Sent again at once: workerd's timers wait while the other clients keep its I/O busy.)
        tally.paused += 1;
      }
      failures.push('a write stayed refused');
    }

    const reader = async () => {
      while (moving) {
        const token = tokens[Math.floor(Math.random() * tokens.length)]!;
        const res = await api(key).get(`/scenarios/${token}`);
        if (res.status !== 200) failures.push(`read ${res.status} ${res.text.slice(0, 200)}`);
        const list = await api(key).get('/scenarios?limit=100');
        if (list.status !== 200) failures.push(`list ${list.status}`);
        tally.reads += 2;
      }
    };
    const writer = async () => {
      let n = 0;
      while (moving) {
        n += 1;
        if (n % 3 === 0) {
          const idempotencyKey = crypto.randomUUID();
          let token: string | null = null;
          await write(async () => {
            const res = await api(key).post('/scenarios', { scenarioData: scenarioData({ year: 2030 }) }, { 'Idempotency-Key': idempotencyKey });
            if (res.status === 201) token = res.body.data.scenario.token;
            return res;
          }, 201);
          if (token) {
            tokens.push(token);
            years.set(token, 2030);
          }
        } else {
          const token = tokens[n % tokens.length]!;
          const year = 2000 + (n % 90);
          await write(() => api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year }) }), 200);
          years.set(token, year);
        }
      }
    };
    const mover = async () => {
      // Small steps, as the admin API takes them (each call at most `budget` statements), with the clients running between them.
      for (let calls = 0; calls < 2000; calls++) {
        const report = await moveAccount(databases(), { accountId: account.id, to: 2, budget: 12 });
        if (report.done) return report;
      }
      throw new Error('the move did not finish');
    };
    const [report] = await Promise.all([mover().finally(() => (moving = false)), reader(), reader(), writer()]);

    expect(failures).toEqual([]);
    expect(report.done).toBe(true);
    expect(tally.reads).toBeGreaterThan(20);
    expect(tally.writes).toBeGreaterThan(5);
    // Writes met the pause, and were answered 503 with Retry-After, then went through.
    expect(tally.paused).toBeGreaterThan(0);
    expect(report.pauseMs).toBeGreaterThanOrEqual(0);

    // Every scenario once, in the new database only, with its last saved data.
    const db2 = databases()[2]!;
    const { results } = await db2.prepare('select token, json_extract(scenario_data, \'$.year\') as year from scenarios where account_id = ?').bind(account.id).all<{ token: string; year: number }>();
    expect(results.map((r) => r.token).sort()).toEqual([...new Set(tokens)].sort());
    expect(results.length).toBe(tokens.length);
    for (const row of results) expect(row.year, row.token).toBe(years.get(row.token));
    expect(await db2.prepare('select scenario_count as n from accounts where id = ?').bind(account.id).first('n')).toBe(tokens.length);
    expect(await countsOf(1, account.id)).toBe(0);
    // Each scenario's history reads back whole on the new database.
    for (const token of tokens.slice(0, 3)) {
      const history = await api(key).get(`/scenarios/${token}/revisions`);
      expect(history.status).toBe(200);
      expect(history.body.data.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it("holds the dashboard's changes during the write pause (503, Retry-After, nothing written), its pages still read; the same change goes through after the move", async () => {
    const { account, user } = await populated(0, 2, { webhook: false });
    const keyCount = () => databases()[0]!.prepare('select count(*) as n from api_keys where account_id = ?').bind(account.id).first('n');
    const state = () => databases()[0]!.prepare('select state from account_moves where account_id = ?').bind(account.id).first('state');
    // Small steps until the move holds the account's writes.
    for (let calls = 0; (await state()) !== 'paused'; calls++) {
      if (calls > 500 || (await state()) === 'moved') throw new Error('the move never stopped in its pause');
      await moveAccount(databases(), { accountId: account.id, to: 2, budget: 12 });
    }
    const keys = await keyCount();
    expect((await user.get('/dashboard/keys')).status).toBe(200);
    const held = await user.post('/dashboard/keys', { name: 'during the pause', scope: 'read' });
    expect(held.status, held.text.slice(0, 300)).toBe(503);
    expect(held.headers.get('Retry-After')).toBe('2');
    expect(held.text).toContain('being moved');
    expect(await keyCount()).toBe(keys);
    expect(await state()).toBe('paused');

    expect(await moveAccount(databases(), { accountId: account.id, to: 2 })).toMatchObject({ done: true });
    const made = await user.post('/dashboard/keys', { name: 'after the move', scope: 'read' });
    expect(made.status).toBe(200);
    expect(shownKey(made.text)).toMatch(/^scn_/);
    expect(await databases()[2]!.prepare('select count(*) as n from api_keys where account_id = ? and name = ?').bind(account.id, 'after the move').first('n')).toBe(1);
  }, 30_000);

  it('D1 faults during a move leave the old or the new copy whole, never a mix, and a re-run finishes it', async () => {
    // How many round trips a move of such an account takes, to spread the faults over all of it.
    const probe = await populated(0, 3);
    const counting = faultyD1(() => undefined);
    await moveAccount(readDatabases(counting.bindings), { accountId: probe.account.id, to: 1 });
    const total = counting.calls;
    expect(total).toBeGreaterThan(20);

    const random = seededRandom(37);
    for (let k = 0; k < 6; k++) {
      const { account, key, tokens } = await populated(0, 3, { webhook: false });
      const before = await rowsOf(0, account.id);
      const views = new Map<string, unknown>();
      // What a client reads of each scenario (its chart URL is signed afresh on every read).
      const view = async (token: string) => {
        const { chart_img: _, ...scenario } = (await api(key).get(`/scenarios/${token}`)).body.data.scenario;
        return scenario;
      };
      for (const token of tokens) views.set(token, await view(token));
      // Every round trip from the k-th sixth of the move on fails, before or after it commits, until the retries give up.
      const from = Math.max(1, Math.floor((total * k) / 6) + Math.floor(random() * 4));
      const d1 = faultyD1((call) => (call >= from && call < from + 6 ? (random() < 0.5 ? 'before' : 'after') : undefined));
      const failed = await moveAccount(readDatabases(d1.bindings), { accountId: account.id, to: 2 }).then(
        () => false,
        () => true,
      );
      expect(failed, `faults from round trip ${from} of ${total}`).toBe(true);
      expect(d1.injected.before + d1.injected.after).toBeGreaterThan(0);

      // Served whole by one copy: every scenario reads as before, through the key.
      const where = (await locateAccount(databases(), account.id))!;
      expect(await rowsOf(where.home, account.id), `the copy serving it (database ${where.home}) after faults from ${from}`).toEqual(before);
      for (const token of tokens) expect(await view(token)).toEqual(views.get(token));
      const listed = await api(key).get('/scenarios?limit=100');
      expect(listed.status).toBe(200);

      // A re-run finishes it.
      const report = await moveAccount(databases(), { accountId: account.id, to: 2 });
      expect(report).toMatchObject({ done: true, to: 2 });
      expect(await rowsOf(2, account.id)).toEqual(before);
      expect(await countsOf(0, account.id)).toBe(0);
      for (const token of tokens) expect(await view(token)).toEqual(views.get(token));
    }
  }, 60_000);

  it('POST /admin/accounts/{id}/move: in calls of at most max_statements until done; unknown ids, unbound databases and a second destination refused', async () => {
    const { account, key, tokens } = await populated('any', 4, { webhook: false });
    const from = databaseOfId(account.id);
    const to = (from + 1) % databases().length;
    expect((await admin().post('/admin/accounts/999999999/move', { to: 'DB' })).status).toBe(404);
    const unbound = await admin().post(`/admin/accounts/${account.id}/move`, { to: 'DB_9' });
    expect(unbound.status).toBe(422);
    expect(unbound.body.errors).toEqual([{ path: 'to', message: 'no database DB_9 is bound' }]);
    expect((await admin().post(`/admin/accounts/${account.id}/move`, { to: 'DB_14' })).status).toBe(422);
    expect((await api(key).post(`/admin/accounts/${account.id}/move`, { to: 'DB' })).status).toBe(401);

    const first = await admin().post(`/admin/accounts/${account.id}/move`, { to: databaseName(to), max_statements: 50 });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ account_id: account.id, from: databaseName(from), to: databaseName(to), done: false });
    const elsewhere = await admin().post(`/admin/accounts/${account.id}/move`, { to: databaseName((to + 1) % databases().length) });
    expect(elsewhere.status).toBe(409);
    let reply = first;
    for (let calls = 1; !reply.body.done; calls++) {
      expect(calls).toBeLessThan(200);
      reply = await admin().post(`/admin/accounts/${account.id}/move`, { to: databaseName(to), max_statements: 50 });
      expect(reply.status, reply.text).toBe(200);
    }
    expect(reply.body).toMatchObject({ phase: 'done', done: true, from: databaseName(from), to: databaseName(to) });
    expect(reply.body.rows).toEqual(expect.arrayContaining([{ table: 'accounts', rows: 1 }, { table: 'scenarios', rows: tokens.length }, { table: 'api_keys', rows: 1 }]));
    expect((await api(key).get(`/scenarios/${tokens[0]}`)).status).toBe(200);
    // The admin API finds the account and its key where they are now.
    const pinned = await admin().put(`/admin/accounts/${account.id}/api_version`, { api_version: '2026-12-01' });
    expect(pinned.body).toMatchObject({ id: account.id, email: account.email, api_version: '2026-12-01' });
    const keys = await admin().get(`/admin/accounts/${account.id}/keys`);
    expect(keys.body.data).toHaveLength(1);
    const made = await admin().post(`/admin/accounts/${account.id}/keys`, {});
    expect(apiKeyDatabase(made.body.key)).toBe(to);
    expect(databaseOfId(made.body.id)).toBe(to);
    expect((await api(made.body.key).get('/me')).status).toBe(200);
    expect((await admin().delete(`/admin/keys/${keys.body.data[0].id}`)).status).toBe(200);
    expect((await api(key).get('/me')).status).toBe(401);
  }, 60_000);
});
