// One request through the Worker's own fetch (as deployed: test/worker-entry.ts) with its D1
// bindings swapped for wrapped ones (faulty-d1.ts), its waitUntil work awaited: for the fault
// tests and for counting the round trips a request makes.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../worker-entry.ts';
import { BASE } from './api.ts';
import { faultyD1, type FaultyD1 } from './faulty-d1.ts';

export interface WorkerReply {
  status: number;
  headers: Headers;
  body: any;
}

/** The request on `d1`, with the API key and, when given, a JSON body. */
export async function sendOn(d1: FaultyD1, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<WorkerReply> {
  // A body is JSON unless `headers` names another type (a patch's).
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(BASE + path, init) as Request<unknown, IncomingRequestCfProperties>, { ...env, ...d1.bindings }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The reply's status and the D1 round trips the request made (a batch is one), on a D1 that never fails. */
export async function roundTripsOf(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; calls: number }> {
  const d1 = faultyD1(() => undefined);
  const { status } = await sendOn(d1, key, method, path, body, headers);
  return { status, calls: d1.calls };
}
