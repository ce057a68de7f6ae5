// Test helpers: drive the Worker through its real fetch (exports.default) against the local D1,
// so each test reads like the contract: `await api(key).get('/scenarios')`. Every reply is also
// checked against the OpenAPI document (openapi-check.ts).
import { env, exports } from 'cloudflare:workers';
import { databaseOfId } from '../../src/db/databases.ts';
import { readDatabases } from '../../src/env.ts';
import { checkAgainstDocument } from './openapi-check.ts';

export const BASE = 'http://scenario.test';
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** TEST_API_VERSION (vitest.config.ts): the API-Version a request sends unless it names one. */
const versionHeader: Record<string, string> = env.TEST_API_VERSION ? { 'API-Version': env.TEST_API_VERSION } : {};

export async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown; raw?: BodyInit } = {}): Promise<Reply> {
  const named = Object.keys(init.headers ?? {}).some((name) => name.toLowerCase() === 'api-version');
  const headers: Record<string, string> = { ...(named ? {} : versionHeader), ...(init.headers ?? {}) };
  let body: BodyInit | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await exports.default.fetch(new Request(BASE + path, { method, headers, body }));
  // Decoded by hand: workerd warns when .text() reads a type it does not know as text (x-ndjson, csv).
  const text = new TextDecoder().decode(await res.arrayBuffer());
  // Every reply any test sees must be one the OpenAPI document describes.
  checkAgainstDocument(method, path, { status: res.status, headers: res.headers, text });
  let parsed: unknown = undefined;
  if (text && /[/+]json\b/.test(res.headers.get('Content-Type') ?? '')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export function api(key?: string, extraHeaders: Record<string, string> = {}) {
  const headers = (h?: Record<string, string>) => ({ ...(key ? { Authorization: `Bearer ${key}` } : {}), ...extraHeaders, ...(h ?? {}) });
  return {
    get: (path: string, h?: Record<string, string>) => send('GET', path, { headers: headers(h) }),
    delete: (path: string, h?: Record<string, string>) => send('DELETE', path, { headers: headers(h) }),
    post: (path: string, body?: unknown, h?: Record<string, string>) => send('POST', path, { headers: headers(h), body }),
    put: (path: string, body?: unknown, h?: Record<string, string>) => send('PUT', path, { headers: headers(h), body }),
    send: (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown; raw?: BodyInit } = {}) =>
      send(method, path, { ...init, headers: headers(init.headers) }),
  };
}

export const admin = () => api(ADMIN_TOKEN);

/**
 * The D1 database holding the account (or key) with this id: accounts are spread over every
 * database wrangler.toml lists, and the tests' accounts land on all of them (src/db/databases.ts).
 */
export function dbOf(id: number): D1Database {
  const db = readDatabases(env)[databaseOfId(id)];
  if (!db) throw new Error(`dbOf: no database holds id ${id}`);
  return db;
}

let counter = 0;
export function uniqueEmail(): string {
  counter += 1;
  return `user${Date.now()}-${counter}-${Math.floor(Math.random() * 1e9)}@example.com`;
}

export async function createAccount(name = 'Test Account', email = uniqueEmail()): Promise<{ id: number; name: string; email: string }> {
  const res = await admin().post('/admin/accounts', { name, email });
  if (res.status !== 201) throw new Error(`createAccount: ${res.status} ${res.text}`);
  return res.body;
}

export async function createKey(accountId: number, options: { scope?: 'read' | 'read_write'; name?: string; expires_at?: string } = {}) {
  const res = await admin().post(`/admin/accounts/${accountId}/keys`, options);
  if (res.status !== 201) throw new Error(`createKey: ${res.status} ${res.text}`);
  return res.body as { id: number; key: string; prefix: string; scope: string };
}

/** A fresh account with one read_write key. */
export async function createAccountWithKey(options: { scope?: 'read' | 'read_write' } = {}) {
  const account = await createAccount();
  const key = await createKey(account.id, options);
  return { account, key: key.key, keyId: key.id };
}

/**
 * A fresh account with one read_write key on database `database` (its index; 0 is DB): new
 * accounts go to the database with the fewest while their sizes are alike, so a few tries reach any bound one.
 */
export async function createAccountWithKeyOn(database: number, options: { scope?: 'read' | 'read_write' } = {}) {
  for (let tries = 0; tries <= 2 * readDatabases(env).length; tries++) {
    const account = await createAccount();
    if (databaseOfId(account.id) !== database) continue;
    const key = await createKey(account.id, options);
    return { account, key: key.key, keyId: key.id };
  }
  throw new Error(`createAccountWithKeyOn: no account landed on database ${database}`);
}

export function adult(overrides: Record<string, unknown> = {}) {
  return {
    age: 34,
    nickname: 'Parent A',
    wage_rate: '18.50',
    yes_or_no: 1,
    adult_type: 1,
    is_married: 1,
    is_veteran: 0,
    unemp_comp: '0',
    is_pregnant: 0,
    monthly_ssi: '0',
    child_support: '0',
    other_unearned: '0',
    monthly_disability: '0',
    soc_sec_retirement: '0',
    same_snap_household: 1,
    work_hours_per_week: '40',
    is_spouse_in_household: 1,
    same_legal_hh_fed_state: 1,
    training_hours_per_week: '0',
    aged_or_disability_income: 0,
    ...overrides,
  };
}

export function child(overrides: Record<string, unknown> = {}) {
  return {
    age: 6,
    sex: 1,
    caretaker: 1,
    in_school: 1,
    yes_or_no: 1,
    is_disabled: 0,
    cc_rate_category: 2,
    ssi_income_amount: '0',
    child_care_setting: 1,
    relation_to_caretaker: 1,
    same_legal_hh_fed_state: 1,
    purchase_and_prepare_meals_together: 1,
    ...overrides,
  };
}

/** A household of two adults and two children in New York. */
export function scenarioData(overrides: Record<string, unknown> = {}) {
  return {
    year: 2026,
    state_id: 36,
    programs: ['snap', 'eitc', 'ctc'],
    adult: [adult(), adult({ nickname: 'Parent B', age: 32, wage_rate: '0', work_hours_per_week: '0', monthly_ssi: '943' })],
    child: [child(), child({ age: 0, in_school: 0, sex: 2 })],
    sub_division: 5,
    ...overrides,
  };
}

export async function createScenario(key: string, data: Record<string, unknown> = scenarioData()) {
  const res = await api(key).post('/scenarios', { scenarioData: data });
  if (res.status !== 201) throw new Error(`createScenario: ${res.status} ${res.text}`);
  return res.body.data.scenario as { token: string; scenario_data: any; chart_img: string; created_at: string; state: { id: number; name: string } };
}

export { env };
