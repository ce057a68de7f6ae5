// Helpers for the scenario tests: problem+json checks, "refused and nothing changed" checks, and
// walking every page of an account's list. They build on api.ts and drive the real Worker.
import { expect } from 'vitest';
import { api, scenarioData, type Reply } from './api.ts';
import { expectProblem } from './contract.ts';

// One problem assertion and one timestamp pattern for every test (contract.ts).
export { expectProblem, TIMESTAMP } from './contract.ts';

export interface FieldError {
  path: string;
  message: string;
}

export const TOKEN = /^[1-9]\d{14}$/;

/** The 19 program values, exactly as the spec lists them. */
export const SPEC_PROGRAMS = [
  'actc', 'ctc', 'eitc', 'state_tax', 'state_eitc', 'child_care', 'tanf', 'ssi', 'liheap', 'fica',
  'snap', 'medic_aid', 'hix_ptc', 'chip', 'housing', 'wic', 'pandemic', 'fed_tax', 'nslp',
] as const;

/** A 422 validation_failed whose `errors` all have a path and a message; returns the errors. */
export function expectValidationFailed(res: Reply): FieldError[] {
  expectProblem(res, 422, 'validation_failed');
  const errors: unknown = res.body.errors;
  expect(Array.isArray(errors)).toBe(true);
  const list = errors as FieldError[];
  expect(list.length).toBeGreaterThan(0);
  for (const error of list) {
    expect(typeof error.path).toBe('string');
    expect(typeof error.message).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
  }
  return list;
}

/** Every item of the account's list, newest first, following starting_after to the end. */
export async function listAll(key: string): Promise<any[]> {
  const items: any[] = [];
  let cursor = '';
  for (;;) {
    const res = await api(key).get(`/scenarios?limit=100${cursor}`);
    expect(res.status, res.text).toBe(200);
    items.push(...res.body.data);
    if (!res.body.has_more) return items;
    cursor = `&starting_after=${res.body.data.at(-1).id}`;
  }
}

/** The paths of a 422 reply, sorted, for exact comparisons. */
export function pathsOf(errors: FieldError[]): string[] {
  return errors.map((e) => e.path).sort();
}

/** POST /scenarios refuses the body with a 422 and the account's list stays exactly the same. */
export async function refusedCreate(key: string, body: unknown): Promise<string[]> {
  const before = await listAll(key);
  const res = await api(key).post('/scenarios', body);
  const errors = expectValidationFailed(res);
  expect(await listAll(key)).toEqual(before);
  return pathsOf(errors);
}

/** Same as refusedCreate, with raw JSON text (for keys such as `__proto__` that objects can't carry). */
export async function refusedCreateRaw(key: string, json: string): Promise<string[]> {
  const before = await listAll(key);
  const res = await api(key).send('POST', '/scenarios', { raw: json, headers: { 'Content-Type': 'application/json' } });
  const errors = expectValidationFailed(res);
  expect(await listAll(key)).toEqual(before);
  return pathsOf(errors);
}

/** A save (POST or PUT /scenarios/save) is refused with a 422; the list and the scenario's ETag don't change. */
export async function refusedSave(key: string, token: string, body: unknown, method: 'POST' | 'PUT' = 'POST'): Promise<string[]> {
  const before = await listAll(key);
  const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag');
  const res = await api(key).send(method, '/scenarios/save', { body });
  const errors = expectValidationFailed(res);
  expect(await listAll(key)).toEqual(before);
  expect((await api(key).get(`/scenarios/${token}`)).headers.get('ETag')).toBe(etag);
  return pathsOf(errors);
}

/** POST /scenarios with these data must succeed; returns the detail form's scenario. */
export async function accepted(key: string, data: Record<string, unknown>): Promise<any> {
  const res = await api(key).post('/scenarios', { scenarioData: data });
  expect(res.status, res.text).toBe(201);
  return res.body.data.scenario;
}

/** The default scenario data with these changes to its first adult. */
export function withAdult(changes: Record<string, unknown>, remove: string[] = []): Record<string, unknown> {
  const data = scenarioData();
  data.adult[0] = without({ ...data.adult[0], ...changes }, remove) as (typeof data.adult)[number];
  return data;
}

/** The default scenario data with these changes to its first child. */
export function withChild(changes: Record<string, unknown>, remove: string[] = []): Record<string, unknown> {
  const data = scenarioData();
  data.child[0] = without({ ...data.child[0], ...changes }, remove) as (typeof data.child)[number];
  return data;
}

/** A copy of the object without these keys. */
export function without<T extends Record<string, unknown>>(object: T, keys: string[]): Partial<T> {
  const copy: Record<string, unknown> = { ...object };
  for (const key of keys) delete copy[key];
  return copy as Partial<T>;
}
