// Findings of the black-box review (issue 13), each shown through the Worker's fetch against the
// local D1: the chart key shares nothing with the admin token, credentials in URLs are refused,
// bodies that are not UTF-8 are refused, chart URLs have one spelling, and every route refuses
// query parameters it does not take.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { captureLogs } from './helpers/logs.ts';
import { openApiDocument } from '../src/app.ts';
import worker from './worker-entry.ts';
import wranglerToml from '../wrangler.toml?raw';
import {
  ADMIN_TOKEN,
  BASE,
  type Reply,
  adult,
  admin,
  api,
  createAccount,
  createAccountWithKey,
  createScenario,
  env,
  scenarioData,
  send,
  uniqueEmail,
} from './helpers/api.ts';
import { expectProblem, freshAddress, snapshot } from './helpers/contract.ts';
import { checkAgainstDocument } from './helpers/openapi-check.ts';

const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The chart URL's path and query, to request it without any Authorization header. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** The URL with one query parameter set to a raw (already encoded) value. */
function withRawParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  const rest = [...u.searchParams].filter(([n]) => n !== name).map(([n, v]) => `${n}=${encodeURIComponent(v)}`);
  return `${u.pathname}?${[...rest, `${name}=${value}`].join('&')}`;
}

/** A request to the same Worker with other secrets: the deployment as an operator may have set it up. */
async function sendWithSecrets(
  secrets: { CHART_SIGNING_KEY?: string | undefined },
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown; raw?: Uint8Array } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.body !== undefined || init.raw !== undefined) headers['Content-Type'] = 'application/json';
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(BASE + path, { method, headers, body }) as Request<unknown, IncomingRequestCfProperties>, { ...env, ...secrets } as Env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  checkAgainstDocument(method, path, { status: res.status, headers: res.headers, text });
  return { status: res.status, headers: res.headers, body: /json/.test(res.headers.get('Content-Type') ?? '') ? JSON.parse(text) : undefined, text };
}

const lines = captureLogs();

describe('the chart signing key shares nothing with the admin token', () => {
  it('chart URLs are signed with CHART_SIGNING_KEY; a signature keyed by anything derived from ADMIN_TOKEN is 403', async () => {
    const { account, key } = await createAccountWithKey();
    const { token, chart_img } = await createScenario(key);
    expect((await send('GET', pathOf(chart_img))).status).toBe(200);

    const exp = new URL(chart_img).searchParams.get('exp')!;
    const signWith = async (secret: string) => {
      const hmac = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const mac = await crypto.subtle.sign('HMAC', hmac, encoder.encode(`chart:v1:${account.id}:${token}:${exp}`));
      return `/scenarios/${token}/chart.svg?exp=${exp}&sig=${account.id}.${base64url(mac)}`;
    };
    // The chart key itself reproduces the served URL: the test knows the scheme it checks.
    expect(await signWith((env as { CHART_SIGNING_KEY?: string }).CHART_SIGNING_KEY ?? '')).toBe(pathOf(chart_img));
    for (const derived of [`chart-url-signing:${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
      expectProblem(await send('GET', await signWith(derived)), 403, 'forbidden');
    }
  });

  it.each([
    ['unset', undefined],
    ['equal to ADMIN_TOKEN', ADMIN_TOKEN],
  ])('with CHART_SIGNING_KEY %s, the replies that carry chart_img are a 500 naming it, and nothing is written', async (_, chartKey) => {
    const secrets = { CHART_SIGNING_KEY: chartKey };
    const { key } = await createAccountWithKey();
    const { token, chart_img } = await createScenario(key);
    const auth = { Authorization: `Bearer ${key}` };
    const before = await snapshot();

    const replies = [
      await sendWithSecrets(secrets, 'POST', '/scenarios', { headers: auth, body: { scenarioData: scenarioData() } }),
      await sendWithSecrets(secrets, 'GET', `/scenarios/${token}`, { headers: auth }),
      await sendWithSecrets(secrets, 'POST', '/scenarios/save', { headers: auth, body: { token, scenarioData: scenarioData({ year: 2030 }) } }),
      await sendWithSecrets(secrets, 'PUT', '/scenarios/save', { headers: auth, body: { token, scenarioData: scenarioData({ year: 2030 }) } }),
      await sendWithSecrets(secrets, 'GET', pathOf(chart_img)),
    ];
    for (const res of replies) {
      expectProblem(res, 500, 'internal_error');
      expect(res.body.detail).toContain('CHART_SIGNING_KEY');
      expect(res.text).not.toContain(ADMIN_TOKEN);
    }
    expect(await snapshot()).toEqual(before);
    // Said plainly to the operator too: one error line per such request, with no secret in it.
    const errors = lines.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(replies.length);
    for (const line of errors) {
      expect(JSON.parse(line)).toMatchObject({ msg: 'server error', detail: expect.stringContaining('CHART_SIGNING_KEY') });
      expect(line).not.toContain(ADMIN_TOKEN);
      expect(line).not.toContain(key);
    }

    // Create and save refuse in one order (src/scenarios/routes.ts, one middleware layer): the key,
    // then a query string, then bytes that are not UTF-8, then the missing chart key; each refusal
    // carries the key's rate-limit policy, and none writes.
    const badBytes = new Uint8Array([...encoder.encode(JSON.stringify({ token, scenarioData: scenarioData() }).slice(0, -1)), 0xff, 0x7d]);
    for (const [method, path] of [['POST', '/scenarios'], ['POST', '/scenarios/save'], ['PUT', '/scenarios/save']] as const) {
      const refusals = [
        [await sendWithSecrets(secrets, method, `${path}?x=1`, { raw: badBytes }), 401, 'unauthorized'],
        [await sendWithSecrets(secrets, method, `${path}?x=1`, { headers: auth, raw: badBytes }), 400, 'invalid_query'],
        [await sendWithSecrets(secrets, method, path, { headers: auth, raw: badBytes }), 400, 'invalid_json'],
      ] as const;
      for (const [res, status, code] of refusals) {
        expectProblem(res, status, code);
        if (status !== 401) expect(res.headers.get('RateLimit-Policy'), `${method} ${path} ${code}`).toMatch(/^"per-key";/);
      }
      expect(refusals[2][0].body.detail).toMatch(/UTF-8/);
    }
    expect(await snapshot()).toEqual(before);

    // What needs no chart key goes on working.
    expect((await sendWithSecrets(secrets, 'GET', '/me', { headers: auth })).status).toBe(200);
    expect((await sendWithSecrets(secrets, 'GET', '/scenarios', { headers: auth })).status).toBe(200);
    expect((await sendWithSecrets(secrets, 'POST', '/admin/accounts', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body: { name: 'A', email: uniqueEmail() } })).status).toBe(201);
    expect((await sendWithSecrets(secrets, 'DELETE', `/scenarios/${token}`, { headers: auth })).status).toBe(200);
  });
});

describe('credentials in URLs', () => {
  it('GET /me?api_key=<a valid key> is 400 invalid_query, before the key is looked at, and the key is neither echoed nor logged', async () => {
    const { key } = await createAccountWithKey();
    for (const headers of [{}, { Authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
      const res = await api(undefined, headers).get(`/me?api_key=${key}`);
      expectProblem(res, 400, 'invalid_query');
      expect(res.body.detail).toMatch(/Authorization: Bearer/);
      expect(res.body.errors).toEqual([{ path: 'api_key', message: expect.stringMatching(/credential/) }]);
      expect(res.text).not.toContain(key);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(key.slice(4));
  });

  it.each(['api_key', 'apikey', 'API-Key', 'x-api-key', 'key', 'token', 'access_token', 'admin_token', 'adminToken', 'auth', 'authorization', 'bearer', 'secret', 'password'])(
    'refuses the parameter %s on every path, whatever its value',
    async (name) => {
      const { key } = await createAccountWithKey();
      const { token, chart_img } = await createScenario(key);
      for (const path of ['/me', '/scenarios', `/scenarios/${token}`, '/admin/accounts/1/keys', pathOf(chart_img), '/openapi.json', '/nope']) {
        const res = await api(key).get(`${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=x`);
        expectProblem(res, 400, 'invalid_query');
        expect(res.body.errors.map((e: { path: string }) => e.path), path).toEqual([name]);
      }
    },
  );

  it('refuses an API key as the value of any parameter, or as a name, without echoing it', async () => {
    const { key } = await createAccountWithKey();
    for (const query of [`starting_after=${key}`, `limit=1&q=Bearer%20${key}`, key, `${key}=1`]) {
      const res = await api(key).get(`/scenarios?${query}`);
      expectProblem(res, 400, 'invalid_query');
      expect(res.body.detail).toMatch(/revoke it/);
      expect(res.text).not.toContain(key.slice(4));
    }
    // The admin token in a URL is refused by its parameter name; its value is never compared.
    expectProblem(await admin().get(`/admin/accounts/1/keys?admin_token=${ADMIN_TOKEN}`), 400, 'invalid_query');
  });

  it('a key in a path is not logged either: the path is logged with the key cut to its public prefix', async () => {
    const { key } = await createAccountWithKey();
    expect((await api(key).get(`/me/${key}`)).status).toBe(404);
    const entry = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'request failed');
    expect(entry.path).toBe(`/me/${key.slice(0, 10)}…`);
    for (const line of lines) expect(line).not.toContain(key.slice(10));
  });

  it('leaves ordinary parameters alone: the list and the chart work as before', async () => {
    const { key } = await createAccountWithKey();
    const { chart_img } = await createScenario(key);
    expect((await api(key).get('/scenarios?limit=5')).status).toBe(200);
    expect((await send('GET', pathOf(chart_img))).status).toBe(200);
  });

  it('the platform keeps no URL query string and no invocation log (wrangler.toml)', () => {
    const observability = /^\[observability\]\n([^[]*)/m.exec(wranglerToml)?.[1] ?? '';
    const logs = /^\[observability\.logs\]\n([^[]*)/m.exec(wranglerToml)?.[1] ?? '';
    expect(observability).toMatch(/^redact_query_string = true$/m);
    expect(logs).toMatch(/^invocation_logs = false$/m);
  });
});

describe('bodies that are not UTF-8', () => {
  const NOT_UTF8 = [0xed, 0xa0, 0x80, 0xff];

  /** The JSON of `body` with the bytes ED A0 80 FF where the string "@@" is. */
  function withBadBytes(body: unknown): Uint8Array {
    const [before, after] = JSON.stringify(body).split('@@') as [string, string];
    return new Uint8Array([...encoder.encode(before), ...NOT_UTF8, ...encoder.encode(after)]);
  }
  const rawJson = (raw: Uint8Array, headers: Record<string, string> = {}) => ({ raw, headers: { 'Content-Type': 'application/json', ...headers } });

  it('create and save answer 400 invalid_json and store nothing (no U+FFFD)', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const before = await snapshot();
    const data = scenarioData({ adult: [adult({ nickname: '@@' })] });
    const replies = [
      await api(key).send('POST', '/scenarios', rawJson(withBadBytes({ scenarioData: data }))),
      await api(key).send('POST', '/scenarios', rawJson(withBadBytes({ scenarioData: data }), { 'Idempotency-Key': 'utf8-check' })),
      await api(key).send('POST', '/scenarios/save', rawJson(withBadBytes({ token, scenarioData: data }))),
      await api(key).send('PUT', '/scenarios/save', rawJson(withBadBytes({ token, scenario_data: data }), { 'Content-Type': 'application/json; charset=utf-8' })),
    ];
    for (const res of replies) {
      expectProblem(res, 400, 'invalid_json');
      expect(res.body.detail).toMatch(/UTF-8/);
    }
    expect(await snapshot()).toEqual(before);
    expect(JSON.stringify(await snapshot())).not.toContain('\uFFFD');
  });

  it('the admin API answers 400 invalid_json too, and creates nothing', async () => {
    const account = await createAccount();
    const before = await snapshot();
    const email = uniqueEmail();
    expectProblem(await admin().send('POST', '/admin/accounts', rawJson(withBadBytes({ name: '@@', email }))), 400, 'invalid_json');
    expectProblem(await admin().send('POST', `/admin/accounts/${account.id}/keys`, rawJson(withBadBytes({ name: '@@' }))), 400, 'invalid_json');
    expect(await snapshot()).toEqual(before);
    // The e-mail address was not taken by the refused request.
    expect((await admin().post('/admin/accounts', { name: 'Fine', email })).status).toBe(201);
  });

  it('valid UTF-8 (multi-byte, astral, with a leading BOM) is stored exactly as sent', async () => {
    const { key } = await createAccountWithKey();
    const nickname = 'Zoë Łukasz 王 😀';
    const json = JSON.stringify({ scenarioData: scenarioData({ adult: [adult({ nickname })] }) });
    const created = await api(key).send('POST', '/scenarios', rawJson(new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(json)])));
    expect(created.status).toBe(201);
    const view = await api(key).get(`/scenarios/${created.body.data.scenario.token}`);
    expect(view.body.data.scenario.scenario_data.adult[0].nickname).toBe(nickname);
  });

  it('the bytes are checked only after authentication, like the rest of the body', async () => {
    const res = await api('scn_not-a-key', freshAddress()).send('POST', '/scenarios', rawJson(withBadBytes({ scenarioData: { x: '@@' } })));
    expect(res.status).toBe(401);
  });
});

describe('chart URLs have one spelling', () => {
  async function chartUrl() {
    const { key } = await createAccountWithKey();
    const { chart_img } = await createScenario(key);
    const sig = new URL(chart_img).searchParams.get('sig')!;
    const exp = new URL(chart_img).searchParams.get('exp')!;
    expect((await send('GET', pathOf(chart_img))).status).toBe(200);
    return { url: chart_img, sig, exp };
  }

  it('a leading zero on exp is 403', async () => {
    const { url, exp } = await chartUrl();
    for (const bad of [`0${exp}`, `00${exp}`, `%2B${exp}`, `${exp}%20`]) {
      expectProblem(await send('GET', withRawParam(url, 'exp', bad)), 403, 'forbidden');
    }
  });

  it('another base64url spelling of the same MAC bytes (the unused low bits of the last character) is 403', async () => {
    const { url, sig } = await chartUrl();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(sig.at(-1)!);
    // 43 characters carry 258 bits for 256: the last character's two low bits are spare.
    expect(last % 4).toBe(0);
    for (const spare of [1, 2, 3]) {
      const variant = sig.slice(0, -1) + alphabet[last + spare];
      expectProblem(await send('GET', withRawParam(url, 'sig', encodeURIComponent(variant))), 403, 'forbidden');
    }
    // Padding, or a leading zero on the account id, is another spelling too.
    const [account, mac] = sig.split('.') as [string, string];
    for (const variant of [`${sig}%3D`, `0${account}.${mac}`]) {
      expectProblem(await send('GET', withRawParam(url, 'sig', variant)), 403, 'forbidden');
    }
  });
});

describe('unknown query parameters are refused on every route', () => {
  it('every operation documents 400 invalid_query', async () => {
    const doc = (await openApiDocument()) as unknown as { paths: Record<string, Record<string, { responses: Record<string, { 'x-problem-codes'?: string[] }> }>> };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.responses['400']?.['x-problem-codes'], `${method} ${path}`).toContain('invalid_query');
      }
    }
  });

  it('each route answers 400 invalid_query naming the parameter, and does nothing', async () => {
    const { account, key, keyId } = await createAccountWithKey();
    const { token, chart_img } = await createScenario(key);
    const before = await snapshot();
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/me'],
      ['GET', `/scenarios/${token}`],
      ['POST', '/scenarios', { scenarioData: scenarioData() }],
      ['POST', '/scenarios/save', { token, scenarioData: scenarioData({ year: 2031 }) }],
      ['PUT', '/scenarios/save', { token, scenarioData: scenarioData({ year: 2031 }) }],
      ['DELETE', `/scenarios/${token}/delete`],
      ['DELETE', `/scenarios/${token}`],
    ];
    for (const [method, path, body] of requests) {
      const res = await api(key).send(method, `${path}?verbose=1&limt=5`, body === undefined ? {} : { body });
      expectProblem(res, 400, 'invalid_query');
      expect(res.body.errors, `${method} ${path}`).toEqual([
        { path: 'verbose', message: 'is not a known field' },
        { path: 'limt', message: 'is not a known field' },
      ]);
    }
    const adminRequests: Array<[string, string, unknown?]> = [
      ['POST', '/admin/accounts', { name: 'Q', email: uniqueEmail() }],
      ['POST', `/admin/accounts/${account.id}/keys`, { name: 'q' }],
      ['GET', `/admin/accounts/${account.id}/keys`],
      ['DELETE', `/admin/keys/${keyId}`],
    ];
    for (const [method, path, body] of adminRequests) {
      const res = await admin().send(method, `${path}?verbose=1`, body === undefined ? {} : { body });
      expectProblem(res, 400, 'invalid_query');
      expect(res.body.errors, `${method} ${path}`).toEqual([{ path: 'verbose', message: 'is not a known field' }]);
    }
    const chart = await send('GET', `${pathOf(chart_img)}&v=2`);
    expectProblem(chart, 400, 'invalid_query');
    expect(chart.body.errors).toEqual([{ path: 'v', message: 'is not a known field' }]);
    expect(await snapshot()).toEqual(before);

    // The same requests without the parameter succeed (nothing else was wrong with them).
    expect((await api(key).get(`/me`)).status).toBe(200);
    expect((await api(key).get(`/scenarios/${token}`)).status).toBe(200);
    expect((await send('GET', pathOf(chart_img))).status).toBe(200);
    expect((await admin().get(`/admin/accounts/${account.id}/keys`)).status).toBe(200);
  });

  it('authentication comes first: an unknown parameter with no key is 401', async () => {
    const res = await api(undefined, freshAddress()).get('/me?verbose=1');
    expect(res.status).toBe(401);
  });
});
