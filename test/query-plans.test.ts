// Every hot-path statement is answered from an index: EXPLAIN QUERY PLAN of the exact SQL and
// values the workflows and query functions send must show no full table scan and no temporary
// sort. Request cost then does not grow with the number of scenarios, keys or accounts.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyed } from '../src/auth/keyed.ts';
import { hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccountByEmail, insertAccount } from '../src/db/accounts.ts';
import { findKeyByHash, listApiKeys, touchKeyLastUsed, type KeyCheck } from '../src/db/api-keys.ts';
import { isThrottled } from '../src/db/auth-throttles.ts';
import { findScenarioOfAccount, prune } from '../src/db/scenarios.ts';
import type { Session } from '../src/db/statement.ts';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import { diffRevisions, listRevisions, restoreRevision, viewRevision } from '../src/revisions/workflows.ts';
import { createScenario, deleteScenario, listScenarios, newEventId, saveScenario, viewScenario } from '../src/scenarios/workflows.ts';
import { scenarioData, uniqueEmail } from './helpers/api.ts';
import { observedD1, type BoundStatement } from './helpers/observed-d1.ts';

interface Plan {
  sql: string;
  /** The plan's lines, one per step (SEARCH, SCAN, subqueries...). */
  steps: string[];
}

/** The plans of every statement `run` sends. */
async function plansOf(run: (session: Session) => Promise<unknown>): Promise<Plan[]> {
  const sent: BoundStatement[] = [];
  await run(observedD1((statement) => sent.push(statement)));
  expect(sent.length).toBeGreaterThan(0);
  const plans: Plan[] = [];
  for (const { sql, params } of sent) {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
    plans.push({ sql, steps: plan.results.map((r) => r.detail) });
  }
  return plans;
}

/** The key's statement, which also looks up a moved account's key's forwarding (src/db/api-keys.ts keyOrForwarding). */
const isForwarding = (plan: Plan) => plan.sql.includes('from `moved_refs`');

const show = (plan: Plan) => `${plan.sql}\n  ${plan.steps.join('\n  ')}`;

// "SCAN t" reads a whole table, and "SCAN t USING (COVERING) INDEX i" a whole index: neither may
// occur. Only "SCAN json_each VIRTUAL TABLE" is allowed (the If-Match versions the request sent, a
// revision's patch), and "SCAN doc", the steps of a restore's rebuild the statement itself makes
// (one per path set, as many as the revisions it walks hold: src/db/revisions.ts).
const FULL_SCAN = /\bSCAN (?!json_each VIRTUAL TABLE|doc\b)/;

function expectIndexed(plans: Plan[]): void {
  for (const plan of plans) {
    for (const step of plan.steps) {
      expect(step, show(plan)).not.toMatch(FULL_SCAN);
      expect(step, show(plan)).not.toMatch(/TEMP B-TREE/);
    }
  }
}

/** Every plan has a step that searches with this index (or primary key). */
function expectEachUses(plans: Plan[], index: string): void {
  for (const plan of plans) expect(plan.steps.some((step) => /^SEARCH /.test(step) && step.includes(index)), show(plan)).toBe(true);
}

/** The one plan whose SQL matches `pattern` (the workflows bind their statements in no set order). */
function planOf(plans: Plan[], pattern: RegExp): Plan {
  const found = plans.filter((p) => pattern.test(p.sql));
  expect(found.map((p) => p.sql), String(pattern)).toHaveLength(1);
  return found[0]!;
}

/** The key's row, sent at the head of every workflow's batch. */
const isKeyRow = (plan: Plan) => plan.sql.includes('as account_name');
/** The client address's throttle, sent in every workflow's batch. */
const isThrottleRow = (plan: Plan) => /^select `auth_throttles`\.`until`/.test(plan.sql);
/** The statements that name the key (all but the throttle row). */
/** The update of the account's scenario count (the storage quota), found through the row's token. */
const isCount = (plan: Plan) => /^update `accounts` set `scenario_count`/.test(plan.sql);
/** The database's recorded size, at the head of every write's batch (src/db/sizes.ts): by its primary key. */
const isSizeRow = (plan: Plan) => /^select `database_sizes`\.`bytes`/.test(plan.sql);
/** The statements that name the key: all but the throttle row and a write's size row. */
const withoutThrottle = (plans: Plan[]) => plans.filter((p) => !isThrottleRow(p) && !isSizeRow(p));

const THROTTLE_INDEX = 'sqlite_autoindex_auth_throttles_1 (address=?)';

/**
 * One throttle row per batch, and every statement that asks for a throttled address (the throttle
 * row, and every statement guarded by a live key) finds it by its primary key.
 */
function expectThrottleIndexed(plans: Plan[]): void {
  expect(plans.filter(isThrottleRow)).toHaveLength(1);
  const asking = plans.filter((p) => p.sql.includes('`auth_throttles`'));
  expect(asking.length).toBeGreaterThan(0);
  expectEachUses(asking, THROTTLE_INDEX);
}

const KEY_INDEX = 'USING INDEX api_keys_key_hash_unique (key_hash=?)';
const TOKEN_INDEX = 'USING INDEX scenarios_token_unique (token=?)';
const EVENT_ID_INDEX = 'events_id_unique (id=?)';

/**
 * The event and the revision of a create, save or restore, copied from the row this request's
 * write stamped with its event id (`change_id`): the key was checked by that write, so these
 * statements do not check it again.
 */
const isEventFromStampedRow = (plan: Plan) => /^insert into `(events|scenario_revisions)`/.test(plan.sql) && plan.sql.includes('`change_id` = ?');
const REVISION_KEY = 'sqlite_autoindex_scenario_revisions_1 (scenario_id=?';

/** Statements skipped once this request's event exists ask for it by id. */
const asksForEvent = (plan: Plan) => /exists \(select 1 from `events` where `events`\.`id` = \?\)/.test(plan.sql);

/** Every statement that asks whether the request's event exists, and the event read back, use the event id index. */
function expectEventLookupsIndexed(plans: Plan[], expected: number): void {
  const lookups = plans.filter((p) => asksForEvent(p) || /^select `events`/.test(p.sql));
  expect(lookups.map((p) => p.sql)).toHaveLength(expected);
  expectEachUses(lookups, EVENT_ID_INDEX);
}

describe('query plans of the hot path', () => {
  let key: KeyCheck;
  let accountId: number;
  let keyId: number;
  let email: string;
  const input = ScenarioDataInputSchema.parse(scenarioData());

  beforeAll(async () => {
    email = uniqueEmail();
    const account = (await insertAccount(env.DB, { name: 'Plans', email, now: Date.now() }))!;
    const issued = (await issueApiKey(env.DB, account.id, { name: null, scope: 'read_write', expiresAt: null, now: Date.now() }))!;
    key = { keyHash: await hashApiKey(issued.key), now: Date.now(), address: '192.0.2.1' };
    accountId = account.id;
    keyId = issued.row.id;
    // A few rows of another account too, so the planner has something to choose between.
    const other = (await insertAccount(env.DB, { name: 'Other', email: uniqueEmail(), now: Date.now() }))!;
    const otherKey = (await issueApiKey(env.DB, other.id, { name: null, scope: 'read_write', expiresAt: null, now: Date.now() }))!;
    const otherCheck = { keyHash: await hashApiKey(otherKey.key), now: Date.now(), address: '192.0.2.2' };
    for (let i = 0; i < 5; i++) {
      await createScenario(keyed(env.DB, key, 'write'), input, newEventId());
      await createScenario(keyed(env.DB, otherCheck, 'write'), input, newEventId());
    }
  });

  it('authenticates by key hash on its unique index, and touches the key by its id', async () => {
    const lookups = [
      ...(await plansOf((s) => findKeyByHash(s, key.keyHash))),
    ];
    const verified = await plansOf((s) => keyed(s, key, 'write').run({}));
    const forwarding = verified.filter(isForwarding);
    expect(forwarding).toHaveLength(1);
    expectIndexed(forwarding);
    expectEachUses(forwarding, 'SEARCH moved_refs USING INDEX sqlite_autoindex_moved_refs_1 (ref=?)');
    expectIndexed([...lookups, ...verified]);
    expectEachUses([...lookups, ...withoutThrottle(verified)], KEY_INDEX);
    expect(verified).toHaveLength(3);
    expectThrottleIndexed(verified);
    expectEachUses(verified.filter(isSizeRow), 'database_sizes USING INTEGER PRIMARY KEY (rowid=?)');
    const touch = await plansOf((s) => touchKeyLastUsed(s, keyId, Date.now(), 60_000));
    expectIndexed(touch);
    expectEachUses(touch, 'USING INTEGER PRIMARY KEY (rowid=?)');
  });

  it('lists every page kind on the (account_id, id) index, the account named through the key index', async () => {
    // The cursor is part of the index search, so a page deep in a long list costs the same.
    const pages = [
      [{ limit: 10 }, '(account_id=?)'],
      [{ limit: 10, startingAfter: 500 }, '(account_id=? AND id<?)'],
      [{ limit: 10, endingBefore: 1 }, '(account_id=? AND id>?)'],
    ] as const;
    for (const [page, search] of pages) {
      const plans = await plansOf((s) => listScenarios(keyed(s, key, 'read'), page));
      // The address's throttle, the key's row and the page.
      expect(plans.map(isKeyRow), JSON.stringify(page)).toEqual(expect.arrayContaining([true, false]));
      expect(plans, JSON.stringify(page)).toHaveLength(3);
      expectIndexed(plans);
      expectThrottleIndexed(plans);
      expectEachUses(withoutThrottle(plans), KEY_INDEX);
      expectEachUses(withoutThrottle(plans).filter((p) => !isKeyRow(p)), `USING INDEX scenarios_account_id_idx ${search}`);
    }
  });

  it('lists every filter, alone, combined and with either cursor, on an index of its filter, without a sort', async () => {
    const cursors = [{}, { startingAfter: 500 }, { endingBefore: 1 }] as const;
    const bounds = ['', ' AND id<?', ' AND id>?'];
    const programBounds = ['', ' AND scenario_id<?', ' AND scenario_id>?'];
    const alone = [
      [{ stateId: 36 }, 'USING INDEX scenarios_account_state_idx (account_id=? AND state_id=?', bounds],
      [{ year: 2026 }, 'USING INDEX scenarios_account_year_idx (account_id=? AND year=?', bounds],
      [{ program: 'snap' as const }, 'USING COVERING INDEX scenario_programs_account_program_idx (account_id=? AND program=?', programBounds],
      // Judged in the index (updated_at is its last column): no row is read to refuse it.
      [{ updatedSince: 1 }, 'USING INDEX scenarios_account_id_idx (account_id=?', bounds],
    ] as const;
    for (const [filter, index, bound] of alone) {
      for (const [i, cursor] of cursors.entries()) {
        const plans = await plansOf((s) => listScenarios(keyed(s, key, 'read'), { limit: 10, ...cursor }, filter));
        const label = JSON.stringify({ filter, cursor });
        expect(plans, label).toHaveLength(3);
        expectIndexed(plans);
        expectThrottleIndexed(plans);
        expectEachUses(withoutThrottle(plans), KEY_INDEX);
        expectEachUses(withoutThrottle(plans).filter((p) => !isKeyRow(p)), `${index}${bound[i]})`);
      }
    }
    // Combined: walked on the index of one of them, the others checked on the rows it reaches.
    const combined = [
      { stateId: 36, year: 2026 },
      { stateId: 36, program: 'snap' as const },
      { year: 2026, program: 'snap' as const },
      { stateId: 36, year: 2026, program: 'snap' as const, updatedSince: 1 },
      { stateId: 36, updatedSince: 1 },
      { year: 2026, updatedSince: 1 },
      { program: 'snap' as const, updatedSince: 1 },
    ];
    for (const filter of combined) {
      for (const cursor of cursors) {
        const plans = await plansOf((s) => listScenarios(keyed(s, key, 'read'), { limit: 10, ...cursor }, filter));
        expectIndexed(plans);
        const [page] = withoutThrottle(plans).filter((p) => !isKeyRow(p));
        expect(page!.steps.some((step) => /USING (COVERING )?INDEX (scenarios_account_(state|year)_idx|scenario_programs_account_program_idx) \(account_id=\? AND (state_id|year|program)=\?/.test(step)), show(page!)).toBe(true);
        // A state beside a program drives the walk; the program is a primary-key probe per row.
        if (filter.stateId !== undefined && filter.program !== undefined) {
          expect(page!.steps.some((step) => /^SEARCH scenario_programs (EXISTS )?USING PRIMARY KEY \(scenario_id=\? AND program=\?\)/.test(step)), show(page!)).toBe(true);
          if (!('year' in filter)) expectEachUses([page!], `USING INDEX scenarios_account_state_idx (account_id=? AND state_id=?`);
        }
      }
    }
  });

  it('views, saves and deletes by token on its unique index, every statement checking the key on its index', async () => {
    const { token } = await createScenario(keyed(env.DB, key, 'write'), input, newEventId());
    const byToken = [
      ...(await plansOf((s) => viewScenario(keyed(s, key, 'read'), token))),
      ...(await plansOf((s) => saveScenario(keyed(s, key, 'write'), token, input, newEventId()))),
      ...(await plansOf((s) => saveScenario(keyed(s, key, 'write'), token, input, newEventId(), [1, 2, 3]))),
    ];
    const deletes = await plansOf((s) => deleteScenario(keyed(s, key, 'write'), token, newEventId()));
    expectIndexed([...byToken, ...deletes]);
    expectThrottleIndexed(deletes);
    expectEachUses(withoutThrottle([...byToken, ...deletes]).filter((p) => !isEventFromStampedRow(p) && !isCount(p)), KEY_INDEX);
    // Each save: the throttle, key and size rows, the update, its event, its revision, the pruning
    // of old revisions, the row and the event read back.
    expect(byToken).toHaveLength(3 + 9 + 9);
    expectEachUses(withoutThrottle(byToken).filter((p) => !isKeyRow(p) && !/^select `events`/.test(p.sql)), TOKEN_INDEX);
    expect(byToken.filter(isEventFromStampedRow)).toHaveLength(4);
    expectEachUses(byToken.filter((p) => /^delete from `scenario_revisions`/.test(p.sql)), `${REVISION_KEY} AND version<?)`);
    // Both updates skip once the event exists; both saves read their event back.
    expectEventLookupsIndexed(byToken, 4);
    // The delete: the head (throttle, key, size), the account's scenario count, the event (copied
    // from the row before it goes), the revisions, the row, the stored replies, the event read back.
    expect(deletes).toHaveLength(9);
    expectEachUses([planOf(deletes, /^update `accounts`/)], TOKEN_INDEX);
    expectEachUses([planOf(deletes, /^delete from `scenario_revisions`/)], `${REVISION_KEY})`);
    expectEachUses([planOf(deletes, /^insert into `events`/), planOf(deletes, /^delete from `scenarios`/)], TOKEN_INDEX);
    expectEachUses([planOf(deletes, /^delete from `idempotency_records`/)], 'USING COVERING INDEX idempotency_records_scenario_idx (account_id=? AND scenario_token=?)');
    expectEventLookupsIndexed(deletes, 3);
    expectEachUses([planOf(deletes, /^insert into `events`/), planOf(deletes, /^select `events`/)], EVENT_ID_INDEX);
  });

  it('reads, restores and diffs history on the revisions primary key, whatever its length', async () => {
    const { token } = await createScenario(keyed(env.DB, key, 'write'), input, newEventId());
    await saveScenario(keyed(env.DB, key, 'write'), token, input, newEventId());
    const reads = [
      ...(await plansOf((s) => listRevisions(keyed(s, key, 'read'), token, { limit: 10 }))),
      ...(await plansOf((s) => listRevisions(keyed(s, key, 'read'), token, { limit: 10, startingAfter: 2 }))),
      ...(await plansOf((s) => listRevisions(keyed(s, key, 'read'), token, { limit: 10, endingBefore: 1 }))),
      ...(await plansOf((s) => viewRevision(keyed(s, key, 'read'), token, 1))),
      ...(await plansOf((s) => diffRevisions(keyed(s, key, 'read'), token, 1))),
    ];
    const restore = await plansOf((s) => restoreRevision(keyed(s, key, 'write'), token, 1, newEventId(), [2], 100));
    expectIndexed([...reads, ...restore]);
    expectEachUses(withoutThrottle(reads), KEY_INDEX);
    const revisionReads = reads.filter((p) => /from `scenario_revisions`/.test(p.sql));
    // Three pages, a view and a diff: each one statement, the newer revisions it is rebuilt from included.
    expect(revisionReads).toHaveLength(5);
    expectEachUses(revisionReads, REVISION_KEY);
    expectEachUses(revisionReads, TOKEN_INDEX);
    expectEachUses(restore.filter((p) => /^update `scenarios`/.test(p.sql)), TOKEN_INDEX);
    expectEachUses(restore.filter((p) => /^update `scenarios`/.test(p.sql)), REVISION_KEY);
  });

  it('creates, with and without an Idempotency-Key, without scanning', async () => {
    const plain = await plansOf((s) => createScenario(keyed(s, key, 'write'), input, newEventId()));
    const idempotent = await plansOf((s) => createScenario(keyed(s, key, 'write'), input, newEventId(), { key: 'plan-key', requestHash: 'h' }));
    expectIndexed([...plain, ...idempotent]);
    expectThrottleIndexed(plain);
    expectThrottleIndexed(idempotent);
    expectEachUses(withoutThrottle([...plain, ...idempotent]).filter((p) => !isEventFromStampedRow(p) && !isCount(p)), KEY_INDEX);
    // The account's scenario count, raised for the row this request inserted (found by its token).
    expectEachUses([...plain, ...idempotent].filter(isCount), TOKEN_INDEX);
    expect([...plain, ...idempotent].filter(isCount)).toHaveLength(2);
    // The created event and revision, copied from the row this request inserted, found by its token.
    expectEachUses([...plain, ...idempotent].filter(isEventFromStampedRow), TOKEN_INDEX);
    expect([...plain, ...idempotent].filter(isEventFromStampedRow)).toHaveLength(4);
    // The inserts (and the claim of the key) skip once the event exists; the event is read back.
    expectEventLookupsIndexed(plain, 3);
    expectEventLookupsIndexed(idempotent, 4);
    // Whether a token is free is asked of the token index; the claimed scenario and the record
    // read back find the record by its primary key.
    const insertPlain = planOf(plain, /^insert into `scenarios`/);
    const claim = planOf(idempotent, /^insert into `idempotency_records`/);
    const claimed = planOf(idempotent, /^insert into `scenarios`/);
    expectEachUses([insertPlain, claim, claimed], 'USING COVERING INDEX scenarios_token_unique (token=?)');
    expectEachUses([claimed, planOf(idempotent, /^select `idempotency_records`\.\*/)], 'USING INDEX sqlite_autoindex_idempotency_records_1 (account_id=? AND key=?)');
  });

  it('finds the chart’s scenario by token, and the admin lookups by their indexes', async () => {
    const chart = await plansOf((s) => findScenarioOfAccount(s, accountId, '123456789012345'));
    expectIndexed(chart);
    expectEachUses(chart, TOKEN_INDEX);
    const keys = await plansOf((s) => listApiKeys(s, accountId));
    expectIndexed(keys);
    expectEachUses([planOf(keys, /^select \* from `api_keys`/)], 'USING INDEX api_keys_account_idx (account_id=?)');
    const byEmail = await plansOf((s) => findAccountByEmail(s, email.toUpperCase()));
    expectIndexed(byEmail);
    expectEachUses(byEmail, 'accounts_email_unique');
  });

  it('prunes stored replies, events and lapsed throttles on their time indexes', async () => {
    const plans = await plansOf((s) => prune(s, { repliesBefore: 0, eventsBefore: 0, throttlesBefore: 0 }));
    expect(plans).toHaveLength(3);
    expectIndexed(plans);
    expectEachUses([planOf(plans, /^delete from `idempotency_records`/)], 'idempotency_records_created_idx (created_at<?)');
    expectEachUses([planOf(plans, /^delete from `events`/)], 'events_created_idx (created_at<?)');
    expectEachUses([planOf(plans, /^delete from `auth_throttles`/)], 'auth_throttles_until_idx (until<?)');
  });

  it('asks for a throttled address by its primary key (the admin API, before its token)', async () => {
    const plans = await plansOf((s) => isThrottled(s, { address: '192.0.2.1', now: Date.now() }));
    expectIndexed(plans);
    expectEachUses(plans, THROTTLE_INDEX);
  });

  it('would catch a table scan, a full index scan and a sort (the checks themselves work)', async () => {
    for (const query of [
      'SELECT * FROM scenarios WHERE scenario_data = ?',
      'SELECT id FROM scenarios WHERE version = ? ORDER BY account_id, id',
      'SELECT * FROM scenarios WHERE account_id = ? ORDER BY created_at',
    ]) {
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`).bind(1).all<{ detail: string }>();
      expect(() => expectIndexed([{ sql: query, steps: plan.results.map((r) => r.detail) }]), query).toThrow();
    }
    expect(() => expectEachUses([{ sql: 'x', steps: ['SEARCH scenarios USING INDEX other_idx (x=?)'] }], TOKEN_INDEX)).toThrow();
  });
});
