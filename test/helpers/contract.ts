// Shared assertions for the auth, admin, error, idempotency and chart tests: the problem+json
// shape, a snapshot of every table (to prove an error changed nothing), fresh client addresses
// (failed authentication is throttled per address), and small waits.
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import type { Reply } from './api.ts';
import { everyDb } from './databases.ts';

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let lastAddress = 0;
/** A client address no other request has used, so the failed-auth limiter never interferes. */
export function freshAddress(): { 'cf-connecting-ip': string } {
  lastAddress += 1;
  return { 'cf-connecting-ip': `198.51.${Math.floor(lastAddress / 250) % 250}.${(lastAddress % 250) + 1}` };
}

/** Asserts an RFC 9457 problem with the contract's fields, status and stable code. */
export function expectProblem(res: Reply, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }, res.text).toEqual({ status, code });
  expect(res.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
  expect(Object.keys(res.body).sort()).toEqual(
    expect.arrayContaining(['code', 'detail', 'request_id', 'status', 'title', 'type']),
  );
  for (const field of Object.keys(res.body)) {
    expect(['type', 'title', 'status', 'detail', 'code', 'request_id', 'errors']).toContain(field);
  }
  expect(res.body.status).toBe(status);
  expect(typeof res.body.type).toBe('string');
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.request_id).toBeTruthy();
  expect(res.body.request_id).toBe(res.headers.get('X-Request-Id'));
  expect(res.headers.get('Cache-Control')).toBe('no-store');
}

/** A 401 as the contract has it: problem `unauthorized` and a Bearer challenge. */
export function expectUnauthorized(res: Reply): void {
  expectProblem(res, 401, 'unauthorized');
  expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer\b/);
}

/** Everything the service stores, minus last_used_at (a successful read legitimately sets it). */
export async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables = ['accounts', 'api_keys', 'scenarios', 'idempotency_records'];
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    // Every database's rows, one after another (accounts are spread over them).
    const { results } = await everyDb.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all<Record<string, unknown>>();
    out[table] = results.map(({ last_used_at: _ignored, ...rest }) => rest);
  }
  return out;
}

/** Every value in every application table, as text: for "this secret is stored nowhere". */
export async function everythingStored(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  ).all<{ name: string }>();
  expect(tables.map((t) => t.name)).toContain('api_keys');
  let text = '';
  for (const { name } of tables) {
    const { results } = await everyDb.prepare(`SELECT * FROM "${name}"`).all();
    text += JSON.stringify(results);
  }
  return text;
}

export async function sha256HexOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds or the time runs out; returns the last value read. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(25);
    value = await read();
  }
  return value;
}

/** The key with its last character changed: same shape, broken checksum. */
export function flipLastChar(key: string): string {
  const last = key.at(-1);
  return key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

/** What `call` rejected with; a test failure if it resolved. */
export async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
