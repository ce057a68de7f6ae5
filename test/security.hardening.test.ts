// Findings of the third round's review (issue 23) beyond webhooks: the admin token's length, a client
// that hangs up in the middle of its body, and the served document naming its environment.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE, admin, createAccountWithKey, uniqueEmail } from './helpers/api.ts';
import { snapshot } from './helpers/contract.ts';
import { captureLogs } from './helpers/logs.ts';
import { checkAgainstDocument } from './helpers/openapi-check.ts';
import worker from './worker-entry.ts';

const lines = captureLogs();

async function withAdminToken(token: string | undefined, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${token ?? 'none'}`, 'Content-Type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  // Through the Worker, which hands /admin to the admin API's Worker on these same bindings.
  const res = await worker.fetch(new Request(BASE + path, init) as Request<unknown, IncomingRequestCfProperties>, { ...env, ADMIN_TOKEN: token } as Env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  checkAgainstDocument(method, path, { status: res.status, headers: res.headers, text });
  return { status: res.status, text, body: JSON.parse(text) };
}

describe('the admin token', () => {
  it('the tests’ own token is long enough', () => {
    expect(ADMIN_TOKEN.length).toBeGreaterThanOrEqual(32);
  });

  it('shorter than 32 characters (or unset), every admin route is a 500 naming ADMIN_TOKEN, never its value, and changes nothing', async () => {
    const before = await snapshot();
    for (const token of ['short-admin-token', 'x'.repeat(31), '', undefined]) {
      for (const [method, path, body] of [
        ['POST', '/admin/accounts', { name: 'A', email: uniqueEmail() }],
        ['GET', '/admin/accounts/1/keys', undefined],
        ['DELETE', '/admin/keys/1', undefined],
      ] as const) {
        const res = await withAdminToken(token, method, path, body);
        expect(res.status, `${token?.length} ${method} ${path}`).toBe(500);
        expect(res.body.code).toBe('internal_error');
        expect(res.body.detail).toContain('ADMIN_TOKEN');
        if (token) expect(res.text).not.toContain(token);
      }
    }
    expect(await snapshot()).toEqual(before);
    for (const line of lines) expect(line).not.toContain('short-admin-token');
    // 32 characters serve.
    const ok = await withAdminToken('y'.repeat(32), 'POST', '/admin/accounts', { name: 'A', email: uniqueEmail() });
    expect(ok.status).toBe(201);
  });
});

/** What the test streams fail with (vitest.config.ts names it among the expected runtime noise). */
const HANG_UP = 'the client hung up mid-body (test)';

/** A body stream that sends `bytes` and then fails, as a client's connection does when it hangs up. */
function cutOff(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
    },
    pull(controller) {
      controller.error(new TypeError(HANG_UP));
    },
  });
}

/** The same, announced with a Content-Length it never reaches. */
function cutOffWithLength(bytes: Uint8Array, length: number): ReadableStream<Uint8Array> {
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  void writer.write(bytes).then(() => writer.abort(new TypeError(HANG_UP)));
  return readable;
}

describe('a client that hangs up in the middle of its body', () => {
  it('is an ordinary refused request: nothing written, nothing logged as an unexpected error', async () => {
    const { key } = await createAccountWithKey();
    const half = new TextEncoder().encode('{"url":"https://hooks.example.com/x","descr');
    const cases: Array<[string, string, Record<string, string>, () => ReadableStream<Uint8Array>]> = [
      ['POST', '/webhook_endpoints', { Authorization: `Bearer ${key}` }, () => cutOff(half)],
      ['POST', '/webhook_endpoints', { Authorization: `Bearer ${key}` }, () => cutOffWithLength(half, 400)],
      ['POST', '/scenarios', { Authorization: `Bearer ${key}` }, () => cutOff(half)],
      ['POST', '/scenarios', { Authorization: `Bearer ${key}` }, () => cutOffWithLength(half, 400)],
      ['POST', '/admin/accounts', { Authorization: `Bearer ${ADMIN_TOKEN}` }, () => cutOffWithLength(half, 400)],
    ];
    const before = await snapshot();
    for (const [method, path, headers, body] of cases) {
      lines.length = 0;
      const res = await exports.default.fetch(
        new Request(BASE + path, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: body(), duplex: 'half' } as RequestInit),
      );
      const text = await res.text();
      checkAgainstDocument(method, path, { status: res.status, headers: res.headers, text });
      expect(res.status, `${path}: ${text}`).toBe(400);
      expect(JSON.parse(text).code).toBe('invalid_json');
      expect(lines.join('\n')).not.toMatch(/unhandled error|"level":"error"/);
    }
    expect(await snapshot()).toEqual(before);
    // The same routes still work.
    expect((await admin().post('/admin/accounts', { name: 'After', email: uniqueEmail() })).status).toBe(201);
  });
});

// Spectral's owasp:api9:2023-inventory-environment, as @stoplight/spectral-owasp-ruleset states it.
const NAMES_AN_ENVIRONMENT = /(local|sandbox|alpha|beta|test|testing|stag|staging|prod|production|next|preprod|preproduction)/i;

describe('the served OpenAPI document', () => {
  it('names the environment of the server it was served from', async () => {
    for (const [origin, environment] of [
      ['https://scenario-service.example.workers.dev', /^Production/],
      ['http://127.0.0.1:8787', /^Local development/],
      ['http://localhost:9000', /^Local development/],
    ] as const) {
      const res = await exports.default.fetch(new Request(`${origin}/openapi.json`));
      const { servers } = (await res.json()) as { servers: Array<{ url: string; description: string }> };
      expect(servers).toHaveLength(1);
      expect(servers[0]!.url).toBe(origin);
      expect(servers[0]!.description).toMatch(environment);
      expect(servers[0]!.description).toMatch(NAMES_AN_ENVIRONMENT);
    }
  });
});
