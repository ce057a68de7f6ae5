// Every row of the error table in docs/decisions.md, over HTTP: problem+json with the stable code, the
// status the table gives, and no change to stored data.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { app } from '../src/app.ts';
import { describe, expect, it } from 'vitest';
import { BASE, api, createAccount, createAccountWithKey, createKey, createScenario, scenarioData, send, type Reply } from './helpers/api.ts';
import { expectProblem, expectUnauthorized, freshAddress, snapshot } from './helpers/contract.ts';
import { checkAgainstDocument } from './helpers/openapi-check.ts';

/** Sends a request with a body streamed in chunks, so no Content-Length is announced. */
async function sendStream(path: string, key: string, chunks: string[]): Promise<Reply> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const init = { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body, duplex: 'half' };
  const request = new Request(BASE + path, init as RequestInit);
  expect(request.headers.get('Content-Length')).toBeNull();
  const res = await exports.default.fetch(request);
  const text = await res.text();
  checkAgainstDocument('POST', path, { status: res.status, headers: res.headers, text });
  return { status: res.status, headers: res.headers, body: /json/.test(res.headers.get('Content-Type') ?? '') ? JSON.parse(text) : undefined, text };
}

/** A JSON body of about `bytes` bytes that is otherwise a valid create. */
function paddedCreate(bytes: number): string {
  const data = JSON.stringify({ scenarioData: scenarioData() });
  return `${data.slice(0, -1)},"padding":"${'x'.repeat(Math.max(0, bytes - data.length - 14))}"}`;
}

const UNKNOWN_TOKEN = '999999999999999';

describe('the error table', () => {
  it('401 unauthorized, with WWW-Authenticate: Bearer, for a missing key', async () => {
    const before = await snapshot();
    expectUnauthorized(await api(undefined, freshAddress()).get('/scenarios'));
    expectUnauthorized(await api(undefined, freshAddress()).post('/scenarios', { scenarioData: scenarioData() }));
    expect(await snapshot()).toEqual(before);
  });

  it('403 forbidden for a read key writing', async () => {
    const { key } = await createAccountWithKey({ scope: 'read' });
    const before = await snapshot();
    expectProblem(await api(key).post('/scenarios', { scenarioData: scenarioData() }), 403, 'forbidden');
    expect(await snapshot()).toEqual(before);
  });

  it("404 not_found for an unknown scenario token (well-formed or not) and for another account's token", async () => {
    const { key } = await createAccountWithKey();
    await createScenario(key);
    const foreign = await createScenario((await createAccountWithKey()).key);
    const before = await snapshot();
    const unknown = await api(key).get(`/scenarios/${UNKNOWN_TOKEN}`);
    const theirs = await api(key).get(`/scenarios/${foreign.token}`);
    expectProblem(theirs, 404, 'not_found');
    expect({ ...theirs.body, request_id: 0 }).toEqual({ ...unknown.body, request_id: 0 });
    expectProblem(await api(key).get(`/scenarios/${UNKNOWN_TOKEN}`), 404, 'not_found');
    expectProblem(await api(key).get('/scenarios/12345'), 404, 'not_found');
    expectProblem(await api(key).get('/scenarios/abc'), 404, 'not_found');
    expect((await api(key).get('/scenarios/abc')).body.detail).toBe(unknown.body.detail);
    expectProblem(await api(key).delete(`/scenarios/${UNKNOWN_TOKEN}/delete`), 404, 'not_found');
    expectProblem(await api(key).post('/scenarios/save', { token: UNKNOWN_TOKEN, scenarioData: scenarioData() }), 404, 'not_found');
    expect(await snapshot()).toEqual(before);
  });

  it('404 not_found problem for an unknown route, with or without a key', async () => {
    const { key } = await createAccountWithKey();
    for (const path of ['/nope', '/', '/scenarios/123456789012345/extra', '/admin', '/admin/nope', '/me/too']) {
      const res = await api(key).get(path);
      expectProblem(res, 404, 'not_found');
      expect(res.headers.get('Allow')).toBeNull();
    }
    expectProblem(await api().get('/nope'), 404, 'not_found');
  });

  it('405 method_not_allowed with Allow for a known path and a wrong method', async () => {
    const { key } = await createAccountWithKey();
    const token = (await createScenario(key)).token;
    const before = await snapshot();
    const cases: Array<[string, string, string[]]> = [
      ['GET', '/scenarios/save', ['POST', 'PUT']],
      ['DELETE', '/scenarios/save', ['POST', 'PUT']],
      ['PATCH', '/scenarios', ['GET', 'HEAD', 'POST']],
      ['PUT', '/scenarios', ['GET', 'HEAD', 'POST']],
      ['DELETE', '/scenarios', ['GET', 'HEAD', 'POST']],
      ['POST', '/me', ['GET', 'HEAD']],
      ['DELETE', '/me', ['GET', 'HEAD']],
      ['PUT', `/scenarios/${token}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['GET', `/scenarios/${token}/delete`, ['DELETE']],
      ['GET', '/admin/accounts', ['POST']],
      ['POST', '/openapi.json', ['GET', 'HEAD']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await api(key).send(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: { token, scenarioData: scenarioData() } });
      expectProblem(res, 405, 'method_not_allowed');
      const allow = (res.headers.get('Allow') ?? '').split(',').map((m) => m.trim()).sort();
      expect(allow, `${method} ${path}`).toEqual(allowed);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('400 invalid_json for malformed JSON and for a non-JSON content type', async () => {
    const { key } = await createAccountWithKey();
    const before = await snapshot();
    const valid = JSON.stringify({ scenarioData: scenarioData() });
    const cases: Array<Record<string, string> | undefined> = [{ 'Content-Type': 'application/json' }, { 'Content-Type': 'text/plain' }, {}];
    for (const raw of ['{"scenarioData": {', valid.slice(0, -1), "{'scenarioData': 1}", '']) {
      expectProblem(await api(key).send('POST', '/scenarios', { headers: cases[0], raw }), 400, 'invalid_json');
    }
    for (const headers of cases.slice(1)) {
      const res = await api(key).send('POST', '/scenarios', { headers, raw: valid });
      expect([400, 415]).toContain(res.status);
      expectProblem(res, res.status, res.status === 400 ? 'invalid_json' : 'unsupported_media_type');
    }
    expectProblem(await api(key).send('POST', '/scenarios/save', { headers: cases[0], raw: '{"token":' }), 400, 'invalid_json');
    expect(await snapshot()).toEqual(before);
  });

  it('400 invalid_query for a bad limit, a bad cursor, both cursors, or an unknown parameter', async () => {
    const { key } = await createAccountWithKey();
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=-1',
      'limit=1.5',
      'starting_after=abc',
      'starting_after=0',
      'endding_before=-3',
      'ending_before=x',
      'starting_after=5&endding_before=2',
      'starting_after=5&ending_before=2',
      'limt=10',
    ]) {
      const res = await api(key).get(`/scenarios?${query}`);
      expectProblem(res, 400, 'invalid_query');
    }
    expect((await api(key).get('/scenarios?limit=100&starting_after=5')).status).toBe(200);
  });

  it('422 validation_failed lists every problem with its path', async () => {
    const { key } = await createAccountWithKey();
    const before = await snapshot();
    const bad = scenarioData({ year: 1800, programs: ['snap', 'bogus'], colour: 'red' });
    (bad.adult[0] as Record<string, unknown>).age = -1;
    const res = await api(key).post('/scenarios', { scenarioData: bad });
    expectProblem(res, 422, 'validation_failed');
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['scenarioData.year', 'scenarioData.programs[1]', 'scenarioData.adult[0].age', 'scenarioData.colour']));
    for (const error of res.body.errors) expect(typeof error.message).toBe('string');
    expect(await snapshot()).toEqual(before);
  });

  it('413 payload_too_large for a body over 256 KiB sent with Content-Length', async () => {
    const { key } = await createAccountWithKey();
    const before = await snapshot();
    const res = await api(key).send('POST', '/scenarios', { headers: { 'Content-Type': 'application/json' }, raw: paddedCreate(257 * 1024) });
    expectProblem(res, 413, 'payload_too_large');
    expect(await snapshot()).toEqual(before);
  });

  it('413 payload_too_large for a body over 256 KiB streamed without Content-Length', async () => {
    const { key } = await createAccountWithKey();
    const before = await snapshot();
    const body = paddedCreate(300 * 1024);
    const chunks = Array.from({ length: Math.ceil(body.length / 16384) }, (_, i) => body.slice(i * 16384, (i + 1) * 16384));
    expectProblem(await sendStream('/scenarios', key, chunks), 413, 'payload_too_large');
    expect(await snapshot()).toEqual(before);
  });

  it('a body just under 256 KiB is read and judged on its content, streamed or not', async () => {
    const { key } = await createAccountWithKey();
    const body = paddedCreate(255 * 1024);
    const plain = await api(key).send('POST', '/scenarios', { headers: { 'Content-Type': 'application/json' }, raw: body });
    expectProblem(plain, 422, 'validation_failed');
    expect(plain.body.errors).toEqual([{ path: 'padding', message: 'is not a known field' }]);
    const streamed = await sendStream('/scenarios', key, [body.slice(0, 100_000), body.slice(100_000)]);
    expectProblem(streamed, 422, 'validation_failed');
    const ok = await sendStream('/scenarios', key, [JSON.stringify({ scenarioData: scenarioData() })]);
    expect(ok.status).toBe(201);
  });

  it('412 precondition_failed when If-Match names an older version', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2024 }) }, { 'If-Match': etag })).status).toBe(200);
    const before = await snapshot();
    const stale = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) }, { 'If-Match': etag });
    expectProblem(stale, 412, 'precondition_failed');
    expectProblem(await api(key).put('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) }, { 'If-Match': '"nonsense"' }), 412, 'precondition_failed');
    expect(await snapshot()).toEqual(before);
    expect((await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data.year).toBe(2024);
  });

  it('429 rate_limited with Retry-After once a key passes its limit of 600 a minute; other keys are unaffected', async () => {
    const account = await createAccount();
    const { key } = await createKey(account.id);
    const other = await createKey(account.id);
    // The limiter's window is aligned to the clock, so a boundary may reset it once mid-test.
    let first429 = -1;
    let limited: Reply | undefined;
    for (let i = 0; i < 1250 && first429 < 0; i++) {
      const res = await api(key).get('/me');
      if (res.status === 429) {
        first429 = i;
        limited = res;
      } else {
        expect(res.status).toBe(200);
      }
    }
    expect(first429).toBeGreaterThanOrEqual(600);
    expectProblem(limited!, 429, 'rate_limited');
    expect(Number(limited!.headers.get('Retry-After'))).toBeGreaterThan(0);

    const before = await snapshot();
    const create = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    expectProblem(create, 429, 'rate_limited');
    expect(await snapshot()).toEqual(before);
    expect((await api(other.key).get('/me')).status).toBe(200);
  }, 60_000);

  it('every error carries the request id of its response, and reuses cf-ray when present', async () => {
    const res = await send('GET', '/nope', { headers: { 'cf-ray': '8f1e2d3c4b5a6978-AMS' } });
    expectProblem(res, 404, 'not_found');
    expect(res.headers.get('X-Request-Id')).toBe('8f1e2d3c4b5a6978-AMS');
    expect(res.body.request_id).toBe('8f1e2d3c4b5a6978-AMS');
  });
});

describe('HEAD and OPTIONS', () => {
  it('HEAD works wherever GET does, with the same status and headers and no body', async () => {
    const { key } = await createAccountWithKey({ scope: 'read_write' });
    const { token } = await createScenario(key);
    for (const path of ['/me', '/scenarios', `/scenarios/${token}`, '/openapi.json']) {
      const get = await api(key).get(path);
      const head = await api(key).send('HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(head.status, path).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('Content-Type')).toBe(get.headers.get('Content-Type'));
    }
    expect((await api(key).send('HEAD', `/scenarios/${token}`)).headers.get('ETag')).toBe('"v1"');
    expect((await api(key).send('HEAD', `/scenarios/${UNKNOWN_TOKEN}`)).status).toBe(404);
    expect((await api(undefined, freshAddress()).send('HEAD', '/me')).status).toBe(401);
  });

  it('HEAD is allowed with a read key', async () => {
    const { key } = await createAccountWithKey({ scope: 'read' });
    expect((await api(key).send('HEAD', '/scenarios')).status).toBe(200);
  });

  it('an OPTIONS preflight gets the CORS headers without a key', async () => {
    const res = await send('OPTIONS', '/scenarios', {
      headers: {
        Origin: 'https://dashboard.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const methods = (res.headers.get('Access-Control-Allow-Methods') ?? '').toUpperCase();
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) expect(methods).toContain(method);
    const allowed = (res.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'content-type', 'idempotency-key', 'if-match']) expect(allowed).toContain(header);
    expect(res.headers.get('WWW-Authenticate')).toBeNull();
  });

  it('cross-origin replies expose the headers a browser client needs', async () => {
    const { key } = await createAccountWithKey();
    const res = await api(key).get('/me', { Origin: 'https://dashboard.example' });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const exposed = (res.headers.get('Access-Control-Expose-Headers') ?? '').toLowerCase();
    for (const header of ['etag', 'location', 'retry-after', 'x-request-id']) expect(exposed).toContain(header);
    const error = await api(undefined, freshAddress()).get('/me', { Origin: 'https://dashboard.example' });
    expect(error.status).toBe(401);
    expect(error.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });
});

describe('validation messages are in the API’s own words, not the validator’s', () => {
  const RAW = /Invalid input|expected \w+, received|Too (big|small)|Invalid option/;

  it('names a missing field as required, a wrong type by what it must be, and a bound by its limit', async () => {
    const { key } = await createAccountWithKey();
    const res = await api(key).post('/scenarios', { scenarioData: { programs: 'ctc', adult: [{ age: 131, wage_rate: '10' }] } });
    expectProblem(res, 422, 'validation_failed');
    const messages = Object.fromEntries((res.body.errors as { path: string; message: string }[]).map((e) => [e.path, e.message]));
    expect(messages['scenarioData.year']).toBe('is required');
    expect(messages['scenarioData.programs']).toBe('must be an array');
    expect(messages['scenarioData.adult[0].age']).toBe('must be at most 130');
    for (const message of Object.values(messages)) expect(message).not.toMatch(RAW);
  });

  it('names a missing query parameter as required (diff without from)', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const res = await api(key).get(`/scenarios/${token}/diff`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors).toEqual([{ path: 'from', message: 'is required' }]);
  });
});

describe('the storage quota over HTTP', () => {
  it('answers a create past ACCOUNT_MAX_SCENARIOS with 409 quota_exceeded and changes nothing', async () => {
    const { key } = await createAccountWithKey();
    await createScenario(key);
    const before = await snapshot();
    const request = new Request(`${BASE}/scenarios`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scenarioData: scenarioData() }),
    });
    const ctx = createExecutionContext();
    const res = await app.fetch(request, { ...env, ACCOUNT_MAX_SCENARIOS: '1' }, ctx);
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    checkAgainstDocument('POST', '/scenarios', { status: res.status, headers: res.headers, text });
    expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(text), text }, 409, 'quota_exceeded');
    expect(await snapshot()).toEqual(before);
  });
});
