// POST /scenarios with an Idempotency-Key (docs/decisions.md: "Scenarios" → Create), and the hourly
// clean-up of the stored replies.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../src/index.ts';
import { api, createAccountWithKey, scenarioData } from './helpers/api.ts';
import { expectProblem, snapshot } from './helpers/contract.ts';
import { everyDb } from './helpers/databases.ts';

const create = (key: string, idempotencyKey: string, data: Record<string, unknown> = scenarioData()) =>
  api(key).post('/scenarios', { scenarioData: data }, { 'Idempotency-Key': idempotencyKey });

const count = async (key: string) => (await api(key).get('/scenarios?limit=100')).body.data.length as number;

/** The reply without chart_img, whose signature is renewed on every reply. */
const withoutChart = (body: any) => ({ ...body, data: { ...body.data, scenario: { ...body.data.scenario, chart_img: undefined } } });

const HOUR = 60 * 60 * 1000;

async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  const scheduled: ExportedHandlerScheduledHandler<Env> = worker.scheduled;
  await scheduled(createScheduledController({ cron: '17 * * * *', scheduledTime: Date.now() }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe('Idempotency-Key on POST /scenarios', () => {
  it('a retry with the same key and body returns the first 201 reply, marked Idempotent-Replayed, and creates one scenario', async () => {
    const { key } = await createAccountWithKey();
    const first = await create(key, 'retry-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const retry = await create(key, 'retry-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retry.body.data.scenario.token).toBe(first.body.data.scenario.token);
    expect(withoutChart(retry.body)).toEqual(withoutChart(first.body));
    expect(retry.headers.get('Location')).toBe(first.headers.get('Location'));
    expect(new URL(retry.body.data.scenario.chart_img).pathname).toBe(new URL(first.body.data.scenario.chart_img).pathname);
    expect(await count(key)).toBe(1);
  });

  it('the replayed chart_img works', async () => {
    const { key } = await createAccountWithKey();
    await create(key, 'chart');
    const url = new URL((await create(key, 'chart')).body.data.scenario.chart_img);
    expect((await api().get(url.pathname + url.search)).status).toBe(200);
  });

  it('without a key, two identical creates make two scenarios', async () => {
    const { key } = await createAccountWithKey();
    const a = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    const b = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    expect(a.body.data.scenario.token).not.toBe(b.body.data.scenario.token);
    expect(await count(key)).toBe(2);
  });

  it('different keys make different scenarios', async () => {
    const { key } = await createAccountWithKey();
    const a = await create(key, 'key-a');
    const b = await create(key, 'key-b');
    expect(a.body.data.scenario.token).not.toBe(b.body.data.scenario.token);
    expect(await count(key)).toBe(2);
  });

  it('the same key with a different body is 422 idempotency_conflict and creates nothing', async () => {
    const { key } = await createAccountWithKey();
    expect((await create(key, 'conflict')).status).toBe(201);
    const before = await snapshot();
    const res = await create(key, 'conflict', scenarioData({ year: 2027 }));
    expectProblem(res, 422, 'idempotency_conflict');
    expect(await snapshot()).toEqual(before);
    expect(await count(key)).toBe(1);
  });

  it('the same body with its fields in another order is the same request', async () => {
    const { key } = await createAccountWithKey();
    const data = scenarioData();
    const reordered = Object.fromEntries(Object.entries(data).reverse());
    const first = await create(key, 'reordered', data);
    const second = await create(key, 'reordered', reordered);
    expect(second.status).toBe(201);
    expect(second.body.data.scenario.token).toBe(first.body.data.scenario.token);
  });

  it('the key is scoped to the account: the same key in another account creates a new scenario', async () => {
    const a = await createAccountWithKey();
    const b = await createAccountWithKey();
    const inA = await create(a.key, 'shared-key');
    const inB = await create(b.key, 'shared-key');
    expect(inB.status).toBe(201);
    expect(inB.headers.get('Idempotent-Replayed')).toBeNull();
    expect(inB.body.data.scenario.token).not.toBe(inA.body.data.scenario.token);
    expect(await count(a.key)).toBe(1);
    expect(await count(b.key)).toBe(1);
    // A different body under the same key is no conflict across accounts either.
    expect((await create(b.key, 'shared-key-2', scenarioData({ year: 2030 }))).status).toBe(201);
    expect((await create(a.key, 'shared-key-2')).status).toBe(201);
  });

  it('a key of up to 255 characters is accepted; a longer one is 400 and creates nothing', async () => {
    const { key } = await createAccountWithKey();
    expect((await create(key, 'k'.repeat(255))).status).toBe(201);
    const before = await snapshot();
    const res = await create(key, 'k'.repeat(256));
    // docs/decisions.md lists no code for a bad header; the service answers `invalid_header`.
    expectProblem(res, 400, 'invalid_header');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['idempotency-key']);
    expect(await snapshot()).toEqual(before);
  });

  it('concurrent creates with one key make exactly one scenario; every reply is that 201 (or 409)', async () => {
    const { key } = await createAccountWithKey();
    const replies = await Promise.all(Array.from({ length: 10 }, () => create(key, 'concurrent')));
    const created = replies.filter((r) => r.status === 201);
    for (const r of replies) expect([201, 409], r.text).toContain(r.status);
    for (const r of replies.filter((r) => r.status === 409)) expectProblem(r, 409, 'conflict');
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.data.scenario.token)).size).toBe(1);
    expect(created.filter((r) => r.headers.get('Idempotent-Replayed') === null).length).toBeLessThanOrEqual(1);
    expect(await count(key)).toBe(1);
    const records = { n: await everyDb.count("SELECT count(*) AS n FROM idempotency_records WHERE key = 'concurrent'") };
    expect(records?.n).toBe(1);
  });

  it('deleting the scenario forgets its stored reply, so a retry creates a new one', async () => {
    const { key } = await createAccountWithKey();
    const first = await create(key, 'then-deleted');
    expect((await api(key).delete(`/scenarios/${first.body.data.scenario.token}`)).status).toBe(200);
    const again = await create(key, 'then-deleted');
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBeNull();
    expect(again.body.data.scenario.token).not.toBe(first.body.data.scenario.token);
  });
});

describe('the scheduled clean-up', () => {
  it('deletes stored replies older than 24 hours and keeps younger ones', async () => {
    const { account, key } = await createAccountWithKey();
    const old = await create(key, 'old');
    const young = await create(key, 'young');
    const setAge = (k: string, ms: number) =>
      everyDb.prepare('UPDATE idempotency_records SET created_at = ? WHERE account_id = ? AND key = ?').bind(Date.now() - ms, account.id, k).run();
    await setAge('old', 24 * HOUR + 60_000);
    await setAge('young', 23 * HOUR);

    await runCron();

    const { results } = await everyDb.prepare('SELECT key FROM idempotency_records WHERE account_id = ?').bind(account.id).all<{ key: string }>();
    expect(results.map((r) => r.key)).toEqual(['young']);
    // The scenarios themselves stay; only the old key's memory is gone.
    expect(await count(key)).toBe(2);
    const retryOld = await create(key, 'old');
    expect(retryOld.headers.get('Idempotent-Replayed')).toBeNull();
    expect(retryOld.body.data.scenario.token).not.toBe(old.body.data.scenario.token);
    const retryYoung = await create(key, 'young');
    expect(retryYoung.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retryYoung.body.data.scenario.token).toBe(young.body.data.scenario.token);
  });

  it('through the Worker’s own scheduled entry point as well', async () => {
    const { account, key } = await createAccountWithKey();
    await create(key, 'via-fetcher');
    await everyDb.prepare('UPDATE idempotency_records SET created_at = ? WHERE account_id = ?').bind(Date.now() - 25 * HOUR, account.id).run();
    const { exports } = await import('cloudflare:workers');
    // Not in the Fetcher type, but workerd's loopback to the Worker has it.
    const fetcher = exports.default as unknown as { scheduled?: (options: { cron: string }) => Promise<unknown> };
    expect(typeof fetcher.scheduled).toBe('function');
    await fetcher.scheduled!({ cron: '17 * * * *' });
    const left = { n: await everyDb.count('SELECT count(*) AS n FROM idempotency_records WHERE account_id = ?', account.id) };
    expect(left?.n).toBe(0);
  });
});
