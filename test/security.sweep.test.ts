// The security sweep, driven by the route table: every operation the OpenAPI document says takes an
// API key is called as an attacker would, and must answer 401 for a missing and for an unknown key,
// 403 for a read key when it writes, and, given another account's ids, exactly what it answers for
// ids that do not exist. A route added without the key check fails here without a new test.
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../src/auth/api-key.ts';
import { openApiDocument } from '../src/app.ts';
import { api, createAccountWithKey, createKey, createScenario, scenarioData, type Reply } from './helpers/api.ts';
import { expectProblem, expectUnauthorized, freshAddress } from './helpers/contract.ts';
import { hookUrl, receiverName, registerEndpoint } from './helpers/webhooks.ts';

interface Operation {
  method: string;
  path: string;
  /** The media type of the example body. */
  contentType?: string | undefined;
  /** The document's example body, when the operation takes one. */
  example: unknown;
  /** The required query parameters, set to the document's examples. */
  query: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of the document behind an API key. */
function keyedOperations(document: unknown): Operation[] {
  type Parameter = { in?: string; name?: string; required?: boolean; schema?: { example?: unknown }; example?: unknown };
  type Op = { security?: { ApiKey?: unknown }[]; parameters?: Parameter[]; requestBody?: { content?: Record<string, { example?: unknown }> } };
  const doc = document as { security?: unknown[]; paths: Record<string, Record<string, Op>> };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security = (op.security ?? doc.security ?? []) as { ApiKey?: unknown }[];
      if (!security.some((s) => 'ApiKey' in s)) continue;
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
      const query = required.map((p) => `${p.name}=${encodeURIComponent(String(p.example ?? p.schema?.example))}`).join('&');
      // The body in the first media type the operation takes (a patch takes no application/json).
      const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      operations.push({ method: method.toUpperCase(), path, example: media?.example, contentType, query });
    }
  }
  return operations;
}

/** Webhook endpoints are managed with read_write keys only, reads included (the keys' owners' secrets live there). */
const writes = (op: Operation) => op.method !== 'GET' || op.path.startsWith('/webhook_endpoints');

interface Ids {
  token: string;
  version: string;
  id: string;
}

/** The operation's request, with its path parameters (and the save body's token) set to `ids`. */
function request(op: Operation, ids: Ids): { path: string; body: unknown } {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: keyof Ids) => ids[name]) + (op.query ? `?${op.query}` : '');
  const body = op.path === '/scenarios/save' ? { ...(op.example as object), token: ids.token } : op.example;
  return { path, body };
}

function call(key: string | undefined, op: Operation, ids: Ids): Promise<Reply> {
  const { path, body } = request(op, ids);
  return api(key, freshAddress()).send(op.method, path, body === undefined ? {} : { body, headers: op.contentType ? { 'Content-Type': op.contentType } : {} });
}

/** What an attacker can compare between two answers: everything but the request id. */
function seen(res: Reply) {
  const { request_id: _id, ...body } = (res.body ?? {}) as Record<string, unknown>;
  return { status: res.status, body, allow: res.headers.get('Allow'), etag: res.headers.get('ETag') };
}

const operations = keyedOperations(await openApiDocument());

describe('the security sweep over every API-key operation of the document', () => {
  let owner: string;
  let reader: string;
  let stranger: string;
  let ids: Ids;
  const unknownIds: Ids = { token: '123456789012345', version: '1', id: 'we_00000000000000000000000000000000' };

  beforeAll(async () => {
    const account = await createAccountWithKey();
    owner = account.key;
    reader = (await createKey(account.account.id, { scope: 'read' })).key;
    stranger = (await createAccountWithKey()).key;
    const scenario = await createScenario(owner, scenarioData());
    const endpoint = await registerEndpoint(owner, hookUrl(receiverName()));
    ids = { token: scenario.token, version: '1', id: endpoint.id };
  });

  it('covers every operation behind an API key, writes and reads', () => {
    expect(operations.length).toBeGreaterThanOrEqual(18);
    expect(operations.filter(writes).length).toBeGreaterThanOrEqual(10);
  });

  it.each(operations)('$method $path: 401 without a key and with an unknown key', async (op) => {
    expectUnauthorized(await call(undefined, op, ids));
    expectUnauthorized(await call(generateApiKey(), op, ids));
  });

  it.each(operations.filter(writes))('$method $path: 403 for a read key', async (op) => {
    const res = await call(reader, op, ids);
    expectProblem(res, 403, 'forbidden');
    expect(res.body.detail).toMatch(/read-only; this operation needs a read_write key/);
  });

  it.each(operations.filter((op) => /\{(token|id)\}/.test(op.path) || op.path === '/scenarios/save'))(
    "$method $path: another account's ids are answered exactly as unknown ones",
    async (op) => {
      const foreign = await call(stranger, op, ids);
      const unknown = await call(stranger, op, unknownIds);
      expect(foreign.status).toBe(404);
      expect(seen(foreign)).toEqual(seen(unknown));
    },
  );
});
