// Retries racing other requests. D1 can commit a batch and lose its reply; execute.ts then sends
// the same batch again. Between the commit and the retry another request may change the same
// scenario. The retry must still answer what its first try did, and must not apply the write
// again: a save is not applied twice and is not answered 412, and a deleted scenario is not
// re-created. Each change records exactly one event. The workflows run against the real local D1;
// the only thing faked is the lost reply, which D1 never loses by itself locally.
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { keyed } from '../src/auth/keyed.ts';
import { wrapD1 } from './helpers/wrapped-d1.ts';
import { hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { insertAccount } from '../src/db/accounts.ts';
import type { KeyCheck } from '../src/db/api-keys.ts';
import { toScenario } from '../src/db/scenarios.ts';
import type { Scenario } from '../src/db/schema.ts';
import { ApiError } from '../src/http/problem.ts';
import { toStoredData } from '../src/scenarios/data.ts';
import { toScenarioForm } from '../src/scenarios/forms.ts';
import { ScenarioDataInputSchema, type ScenarioDataInput } from '../src/scenarios/schema.ts';
import { createScenario, deleteScenario, newEventId, saveScenario } from '../src/scenarios/workflows.ts';
import { scenarioData, uniqueEmail } from './helpers/api.ts';
import { failure } from './helpers/contract.ts';
import { TRANSIENT_MESSAGE } from './helpers/faulty-d1.ts';

interface LossyD1 {
  db: D1Database;
  /** Batches sent through `db` so far: the first try and its retries. */
  readonly batches: number;
  /** Whether the other request has run (between the first commit and the retry). */
  readonly interleaved: boolean;
}

/**
 * env.DB, except that the first batch commits and then loses its reply. `between` (another
 * request, on env.DB itself) runs after the commit and before the error reaches the retry logic.
 * Every later batch goes through untouched.
 */
function replyLostAfterCommit(between: () => Promise<unknown>): LossyD1 {
  const state = { batches: 0, interleaved: false };
  const db = wrapD1(env.DB, {
    async batch(run) {
      state.batches += 1;
      const results = await run();
      if (state.batches === 1) {
        await between();
        state.interleaved = true;
        throw new Error(TRANSIENT_MESSAGE);
      }
      return results;
    },
  });
  return {
    db,
    get batches() {
      return state.batches;
    },
    get interleaved() {
      return state.interleaved;
    },
  };
}

const input = (overrides: Record<string, unknown> = {}): ScenarioDataInput => ScenarioDataInputSchema.parse(scenarioData(overrides));

let accountId: number;
let key: () => KeyCheck;
beforeEach(async () => {
  const account = await insertAccount(env.DB, { name: 'Retry Race', email: uniqueEmail(), now: Date.now() });
  if (!account) throw new Error('account not inserted');
  const issued = await issueApiKey(env.DB, account.id, { name: null, scope: 'read_write', expiresAt: null, now: Date.now() });
  if (!issued) throw new Error('key not issued');
  const keyHash = await hashApiKey(issued.key);
  accountId = account.id;
  key = () => ({ keyHash, now: Date.now(), address: '192.0.2.1' });
});

async function rowOf(token: string): Promise<Scenario | null> {
  const row = await env.DB.prepare('select * from scenarios where token = ?').bind(token).first<Record<string, unknown>>();
  return row ? toScenario(row) : null;
}

async function tokens(): Promise<string[]> {
  const { results } = await env.DB.prepare('select token from scenarios where account_id = ? order by id').bind(accountId).all<{ token: string }>();
  return results.map((r) => r.token);
}

async function replyTokens(): Promise<string[]> {
  const { results } = await env.DB.prepare('select scenario_token from idempotency_records where account_id = ? order by key')
    .bind(accountId)
    .all<{ scenario_token: string }>();
  return results.map((r) => r.scenario_token);
}

/** The account's events as [id, type, token, version], in the order they were recorded. */
async function events(): Promise<[string, string, string, number | null][]> {
  const { results } = await env.DB.prepare('select id, type, token, version from events where account_id = ? order by seq')
    .bind(accountId)
    .all<{ id: string; type: string; token: string; version: number | null }>();
  return results.map((e) => [e.id, e.type, e.token, e.version]);
}

/** A scenario with its one created event; its token and that event's id. */
async function existing(data = input()): Promise<{ token: string; createdId: string }> {
  const createdId = newEventId();
  const { token } = await createScenario(keyed(env.DB, key(), 'write'), data, createdId);
  return { token, createdId };
}

describe('the wrapper itself', () => {
  it('commits the first batch, runs the other request, and the retry goes through', async () => {
    let ran = 0;
    const d1 = replyLostAfterCommit(async () => {
      ran += 1;
    });
    const eventId = newEventId();
    const result = await createScenario(keyed(d1.db, key(), 'write'), input(), eventId);
    expect([d1.batches, d1.interleaved, ran]).toEqual([2, true, 1]);
    expect(await tokens()).toEqual([result.token]);
    expect(await events()).toEqual([[eventId, 'scenario.created', result.token, 1]]);
  });
});

describe('a save whose reply was lost, with another save committed before its retry', () => {
  it('without If-Match: answers saved with its own version (v2); the other save keeps v3 and its data', async () => {
    const { token, createdId } = await existing();
    const dataA = input({ year: 2030, state_id: 6 });
    const dataB = input({ year: 2031, state_id: 36 });
    const idA = newEventId();
    const idB = newEventId();
    let savedB: Awaited<ReturnType<typeof saveScenario>> | undefined;
    const d1 = replyLostAfterCommit(async () => {
      savedB = await saveScenario(keyed(env.DB, key(), 'write'), token, dataB, idB);
    });

    const savedA = await saveScenario(keyed(d1.db, key(), 'write'), token, dataA, idA);

    expect([d1.batches, d1.interleaved]).toEqual([2, true]);
    expect(savedA.scenario.version).toBe(2);
    expect(savedA.stored).toEqual(toStoredData(dataA, token));
    expect(savedB?.scenario.version).toBe(3);
    // A was not applied again over B: the row is B's.
    const row = (await rowOf(token))!;
    expect([row.version, row.changeId, JSON.parse(row.scenarioData)]).toEqual([3, idB, toStoredData(dataB, token)]);
    expect(await events()).toEqual([
      [createdId, 'scenario.created', token, 1],
      [idA, 'scenario.saved', token, 2],
      [idB, 'scenario.saved', token, 3],
    ]);
  });

  // After the race the row read back is B's; A's answer must still be A's own save.
  it("answers with its own save's state and data, not the row the other save left", async () => {
    const { token } = await existing();
    const dataA = input({ year: 2030, state_id: 6 });
    const idA = newEventId();
    const d1 = replyLostAfterCommit(() => saveScenario(keyed(env.DB, key(), 'write'), token, input({ year: 2031, state_id: 36 }), newEventId()));

    const savedA = await saveScenario(keyed(d1.db, key(), 'write'), token, dataA, idA);

    expect(savedA.scenario.version).toBe(2);
    const reply = toScenarioForm(savedA.scenario, null, '');
    expect(reply.scenario_data.state).toBe(6);
    expect(reply.state.id).toBe(6);
    expect({ stateId: savedA.scenario.stateId, changeId: savedA.scenario.changeId, year: JSON.parse(savedA.scenario.scenarioData).year }).toEqual({
      stateId: 6,
      changeId: idA,
      year: 2030,
    });
  });

  it('with If-Match: answers saved with v2, not 412 (the row is at v3 by then)', async () => {
    const { token, createdId } = await existing();
    const dataA = input({ year: 2032 });
    const dataB = input({ year: 2033 });
    const idA = newEventId();
    const idB = newEventId();
    const d1 = replyLostAfterCommit(() => saveScenario(keyed(env.DB, key(), 'write'), token, dataB, idB, [2]));

    const savedA = await saveScenario(keyed(d1.db, key(), 'write'), token, dataA, idA, [1]);

    expect([d1.batches, d1.interleaved]).toEqual([2, true]);
    expect(savedA.scenario.version).toBe(2);
    expect(savedA.stored).toEqual(toStoredData(dataA, token));
    const row = (await rowOf(token))!;
    expect([row.version, row.changeId, JSON.parse(row.scenarioData)]).toEqual([3, idB, toStoredData(dataB, token)]);
    expect(await events()).toEqual([
      [createdId, 'scenario.created', token, 1],
      [idA, 'scenario.saved', token, 2],
      [idB, 'scenario.saved', token, 3],
    ]);
  });

  it('with If-Match: the other save, naming the version A replaced, gets 412; A still answers saved', async () => {
    const { token, createdId } = await existing();
    const idA = newEventId();
    let refused: unknown;
    const d1 = replyLostAfterCommit(async () => {
      refused = await failure(saveScenario(keyed(env.DB, key(), 'write'), token, input({ year: 2035 }), newEventId(), [1]));
    });

    const savedA = await saveScenario(keyed(d1.db, key(), 'write'), token, input({ year: 2034 }), idA, [1]);

    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'precondition_failed', headers: { ETag: '"v2"' } });
    expect(savedA.scenario.version).toBe(2);
    expect((await rowOf(token))?.version).toBe(2);
    expect(await events()).toEqual([
      [createdId, 'scenario.created', token, 1],
      [idA, 'scenario.saved', token, 2],
    ]);
  });

  it('answers not_found when the scenario was deleted before the retry; its saved event stays, one event each', async () => {
    const { token, createdId } = await existing();
    const idA = newEventId();
    const idDelete = newEventId();
    const d1 = replyLostAfterCommit(() => deleteScenario(keyed(env.DB, key(), 'write'), token, idDelete));

    const error = await failure(saveScenario(keyed(d1.db, key(), 'write'), token, input({ year: 2036 }), idA));

    expect(error).toMatchObject({ code: 'not_found' });
    expect(await rowOf(token)).toBeNull();
    expect(await events()).toEqual([
      [createdId, 'scenario.created', token, 1],
      [idA, 'scenario.saved', token, 2],
      [idDelete, 'scenario.deleted', token, null],
    ]);
  });
});

describe('a create whose reply was lost, with its scenario deleted before the retry', () => {
  /** The token the first try committed, found by its event id (the create has not answered yet). */
  async function committedToken(eventId: string): Promise<string> {
    const row = await env.DB.prepare('select token from scenarios where change_id = ?').bind(eventId).first<{ token: string }>();
    if (!row) throw new Error('the first try did not commit');
    return row.token;
  }

  it('answers created with the token it committed, and does not create it again', async () => {
    const idCreate = newEventId();
    const idDelete = newEventId();
    let deleted = '';
    const d1 = replyLostAfterCommit(async () => {
      deleted = await committedToken(idCreate);
      await deleteScenario(keyed(env.DB, key(), 'write'), deleted, idDelete);
    });

    const result = await createScenario(keyed(d1.db, key(), 'write'), input(), idCreate);

    expect([d1.batches, d1.interleaved]).toEqual([2, true]);
    expect(result.replayed).toBe(false);
    expect(result.token).toBe(deleted);
    expect(result.body.data.token).toBe(deleted);
    expect(await tokens()).toEqual([]);
    expect(await rowOf(deleted)).toBeNull();
    expect(await events()).toEqual([
      [idCreate, 'scenario.created', deleted, 1],
      [idDelete, 'scenario.deleted', deleted, null],
    ]);
  });

  it('with an Idempotency-Key: answers created (not a replay), and re-creates neither the scenario nor its stored reply', async () => {
    const idCreate = newEventId();
    const idDelete = newEventId();
    let deleted = '';
    const d1 = replyLostAfterCommit(async () => {
      deleted = await committedToken(idCreate);
      expect(await replyTokens()).toEqual([deleted]);
      await deleteScenario(keyed(env.DB, key(), 'write'), deleted, idDelete);
    });

    const result = await createScenario(keyed(d1.db, key(), 'write'), input(), idCreate, { key: 'raced', requestHash: 'h' });

    expect([d1.batches, d1.interleaved]).toEqual([2, true]);
    expect(result.replayed).toBe(false);
    expect(result.token).toBe(deleted);
    expect(await tokens()).toEqual([]);
    expect(await replyTokens()).toEqual([]);
    expect(await events()).toEqual([
      [idCreate, 'scenario.created', deleted, 1],
      [idDelete, 'scenario.deleted', deleted, null],
    ]);
  });

  it('with an Idempotency-Key: a replay by another request in between does not turn the retry into a replay', async () => {
    const idCreate = newEventId();
    const idReplay = newEventId();
    const data = input({ year: 2037 });
    let replay: Awaited<ReturnType<typeof createScenario>> | undefined;
    const d1 = replyLostAfterCommit(async () => {
      replay = await createScenario(keyed(env.DB, key(), 'write'), data, idReplay, { key: 'shared', requestHash: 'h' });
    });

    const result = await createScenario(keyed(d1.db, key(), 'write'), data, idCreate, { key: 'shared', requestHash: 'h' });

    expect(result.replayed).toBe(false);
    expect([replay?.replayed, replay?.token]).toEqual([true, result.token]);
    expect(await tokens()).toEqual([result.token]);
    expect(await replyTokens()).toEqual([result.token]);
    expect(await events()).toEqual([[idCreate, 'scenario.created', result.token, 1]]);
  });
});

describe('a delete whose reply was lost, with another delete of the same scenario before its retry', () => {
  it('answers deleted; the other delete is not_found; one deleted event', async () => {
    const { token, createdId } = await existing();
    const idA = newEventId();
    let other: unknown;
    const d1 = replyLostAfterCommit(async () => {
      other = await failure(deleteScenario(keyed(env.DB, key(), 'write'), token, newEventId()));
    });

    await deleteScenario(keyed(d1.db, key(), 'write'), token, idA);

    expect([d1.batches, d1.interleaved]).toEqual([2, true]);
    expect(other).toMatchObject({ code: 'not_found' });
    expect(await events()).toEqual([
      [createdId, 'scenario.created', token, 1],
      [idA, 'scenario.deleted', token, null],
    ]);
  });
});
