// SCENARIO_RETENTION_DAYS (30 in the test config): counted from the last save; expired scenarios
// stay readable and listable, and saving one renews it.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/env.ts';
import { expiredAt } from '../src/scenarios/retention.ts';
import { api, createAccountWithKey, createScenario, env, scenarioData } from './helpers/api.ts';
import { everyDb } from './helpers/databases.ts';

const DAY = 86_400_000;

async function backdate(token: string, days: number): Promise<number> {
  const updatedAt = Date.now() - days * DAY;
  await everyDb.prepare('UPDATE scenarios SET updated_at = ? WHERE token = ?').bind(updatedAt, token).run();
  return updatedAt;
}

async function listed(key: string, token: string) {
  const res = await api(key).get('/scenarios?limit=100');
  return res.body.data.find((item: { token: string }) => item.token === token);
}

describe('retention', () => {
  it('shows expired as null while the scenario is live', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    expect((await listed(key, token)).expired).toBeNull();
  });

  it('marks a scenario expired once the retention period after the last save has passed', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const updatedAt = await backdate(token, 31);
    const item = await listed(key, token);
    expect(item.expired).toBe(new Date(updatedAt + 30 * DAY).toISOString().replace('Z', '000Z'));
    expect((await api(key).get(`/scenarios/${token}`)).status).toBe(200);
  });

  it('keeps a scenario live one day before the period ends', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    await backdate(token, 29);
    expect((await listed(key, token)).expired).toBeNull();
  });

  it('renews an expired scenario when it is saved', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    await backdate(token, 45);
    const saved = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) });
    expect(saved.status).toBe(200);
    expect((await listed(key, token)).expired).toBeNull();
  });

  it('reads the setting: empty or invalid means never', () => {
    const days = (value: string | undefined) => readConfig({ SCENARIO_RETENTION_DAYS: value }).retentionDays;
    expect([days(''), days(undefined), days('abc'), days('0'), days('30')]).toEqual([null, null, null, null, 30]);
    expect(expiredAt(0, null, 10 * 365 * DAY)).toBeNull();
  });
});
