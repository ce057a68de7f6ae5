// npm run smoke: the service as users run it. Starts `npm start` (wrangler dev) on a spare port,
// takes the development key it prints, drives every route over real HTTP, and stops the server.
// It catches what the in-process tests cannot: the dev server, .dev.vars, seeding, the bundle, and
// webhooks end to end: wrangler dev's own queue delivers to a receiver this script runs on
// loopback, and each delivery is verified with the `standardwebhooks` package. Then what must never
// happen locally: a credential sent in a URL kept anywhere on disk (.wrangler's state, local
// traces included, and wrangler's own log files), and a client hanging up mid-body logged as an
// unexpected error.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { checklist, startService } from './lib/service.ts';
import { startReceiver } from './lib/webhook-receiver.ts';

/** How long the three deliveries may take (the local queue's batch timeout is 1 s). */
const DELIVERY_DEADLINE_MS = 30_000;

// wrangler's debug log files, here instead of ~/.config/.wrangler/logs, so they can be searched.
const wranglerLogs = mkdtempSync(path.join(tmpdir(), 'smoke-wrangler-logs-'));
const receiver = await startReceiver();
const service = await startService(process.env.SMOKE_PORT ?? '8797', 120_000, { WRANGLER_LOG_PATH: wranglerLogs });
const { base, key } = service;
const checks = checklist();
const { check } = checks;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
}

const adult = {
  age: 40, wage_rate: '20', yes_or_no: 1, adult_type: 1, is_married: 0, is_veteran: 0, unemp_comp: '0',
  monthly_ssi: '0', child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0',
  same_snap_household: 1, work_hours_per_week: '40', is_spouse_in_household: 0, same_legal_hh_fed_state: 1,
  training_hours_per_week: '0', aged_or_disability_income: 0,
};
const data = { year: 2026, state_id: 6, programs: ['snap', 'eitc'], adult: [adult] };

/** Registers a receiver endpoint, creates, saves and deletes a scenario: three signed deliveries. */
async function checkWebhooks(): Promise<void> {
  const name = `smoke${Date.now()}`;
  const endpoint = await call('POST', '/webhook_endpoints', { url: `${receiver.url}/hook/${name}`, description: 'smoke' });
  if (!check('POST /webhook_endpoints (loopback receiver) → 201 with a secret', endpoint.status === 201 && /^whsec_/.test(endpoint.json.secret))) return;
  try {
    const created = await call('POST', '/scenarios', { scenarioData: data });
    const token: string = created.json.data.scenario.token;
    const saved = await call('POST', '/scenarios/save', { token, scenarioData: { ...data, year: 2024 } });
    const deleted = await call('DELETE', `/scenarios/${token}`);
    check('create, save, delete for the webhook', created.status === 201 && saved.status === 200 && deleted.status === 200);
    const deadline = Date.now() + DELIVERY_DEADLINE_MS;
    while (receiver.received(name).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const deliveries = receiver.received(name);
    const webhook = new Webhook(endpoint.json.secret);
    const events = deliveries.flatMap((d) => {
      try {
        return [webhook.verify(d.body, d.headers) as { id: string; type: string; data: { token: string; version?: number } }];
      } catch {
        return [];
      }
    });
    const got = events.filter((e) => e.data.token === token).map((e) => `${e.type}:${e.data.version ?? '-'}`).sort();
    check(
      `three deliveries within ${DELIVERY_DEADLINE_MS / 1000} s, each verified by standardwebhooks`,
      deliveries.length === 3 && events.length === 3 && got.join() === 'scenario.created:1,scenario.deleted:-,scenario.saved:2',
      `received ${deliveries.length}, verified ${events.length}: ${got.join(', ')}`,
    );
    const listed = await call('GET', '/events?limit=3');
    check('GET /events lists the same three events', listed.status === 200 && listed.json.data.map((e: { id: string }) => e.id).sort().join() === events.map((e) => e.id).sort().join());
    const attempts = await call('GET', `/webhook_endpoints/${endpoint.json.id}/deliveries`);
    check('GET /webhook_endpoints/{id}/deliveries records three 2xx attempts', attempts.status === 200 && attempts.json.data.filter((a: { status: number }) => a.status >= 200 && a.status < 300).length === 3);

    const rotated = await call('POST', `/webhook_endpoints/${endpoint.json.id}/rotate_secret`, { expires_in: 3600 });
    check('POST /webhook_endpoints/{id}/rotate_secret → 200 with a new secret', rotated.status === 200 && /^whsec_/.test(rotated.json.secret) && rotated.json.secret !== endpoint.json.secret);
    await call('POST', '/scenarios', { scenarioData: data });
    const rotationDeadline = Date.now() + DELIVERY_DEADLINE_MS;
    while (receiver.received(name).length < 4 && Date.now() < rotationDeadline) await new Promise((r) => setTimeout(r, 100));
    const afterRotation = receiver.received(name)[3];
    const verifies = (secret: string) => {
      try {
        return afterRotation !== undefined && new Webhook(secret).verify(afterRotation.body, afterRotation.headers) !== undefined;
      } catch {
        return false;
      }
    };
    check(
      'after a rotation, a delivery carries both signatures: standardwebhooks verifies it with the new secret and with the old one',
      afterRotation?.headers['webhook-signature']?.split(' ').length === 2 && verifies(rotated.json.secret) && verifies(endpoint.json.secret),
    );
    check('POST /webhook_endpoints/{id}/enable → 200 enabled', (await call('POST', `/webhook_endpoints/${endpoint.json.id}/enable`)).json.status === 'enabled');
  } finally {
    check('DELETE /webhook_endpoints/{id} → 204', (await call('DELETE', `/webhook_endpoints/${endpoint.json.id}`)).status === 204);
  }
}

// Credentials as people put them in URLs: random, so that finding one on disk can only mean a URL
// was kept (the development key itself is kept on purpose, in .wrangler/state/dev-api-key).
const urlCredentials = {
  api_key: `scn_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`,
  admin_token: randomBytes(32).toString('base64url'),
  access_token: randomBytes(32).toString('hex'),
};

/** Each credential sent in a URL (refused with 400, but received). */
async function sendCredentialsInUrls(): Promise<void> {
  const answers = [
    await call('GET', `/me?api_key=${urlCredentials.api_key}`),
    await call('GET', `/admin/accounts/1/keys?admin_token=${urlCredentials.admin_token}`, undefined, { Authorization: '' }),
    await call('POST', `/scenarios?access_token=${urlCredentials.access_token}`, { scenarioData: data }),
    await call('GET', `/scenarios/${urlCredentials.api_key}`),
  ];
  check('credentials in a URL are refused', answers.slice(0, 3).every((a) => a.status === 400), answers.map((a) => a.status).join());
}

/** Every file under `dir` (recursively) that holds one of `needles`, as bytes. */
function filesHolding(dir: string, needles: string[]): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, entry);
    if (!statSync(file).isFile()) continue;
    const bytes = readFileSync(file);
    if (needles.some((needle) => bytes.includes(needle))) found.push(file);
  }
  return found;
}

/** After the server stopped (its databases flushed): no credential sent in a URL is on disk. */
function checkNothingOnDisk(): void {
  const needles = Object.values(urlCredentials);
  const found = [...filesHolding('.wrangler', needles), ...filesHolding(wranglerLogs, needles)];
  check('no credential sent in a URL is kept on disk (.wrangler, local traces, wrangler logs)', found.length === 0, found.join('\n'));
}

/** A client that announces a body, sends part of it and hangs up. */
async function hangUpMidBody(): Promise<void> {
  const { hostname, port } = new URL(base);
  await new Promise<void>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `POST /webhook_endpoints HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{"url":"https://hooks.example.com/x","desc',
      );
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 300);
    });
    socket.on('error', () => resolve());
  });
  // The server's log lines of that request arrive within a moment.
  await new Promise((r) => setTimeout(r, 1500));
  const endpoints = await call('GET', '/webhook_endpoints');
  check(
    'a client hanging up mid-body: nothing written, nothing logged as an unexpected error',
    !/unhandled error/.test(service.output()) && endpoints.json.data.every((e: { url: string }) => e.url !== 'https://hooks.example.com/x'),
    service.output().split('\n').filter((line) => /error/i.test(line)).join('\n'),
  );
}

try {
  const me = await call('GET', '/me');
  check('GET /me with the printed key', me.status === 200 && me.json.email === 'dev@example.com');
  const created = await call('POST', '/scenarios', { scenarioData: data }, { 'Idempotency-Key': `smoke-${Date.now()}` });
  check('POST /scenarios → 201 with Location', created.status === 201 && created.headers.get('location') !== null);
  const token: string = created.json.data.scenario.token;
  const view = await call('GET', `/scenarios/${token}`);
  check('GET /scenarios/{token} → detail with numeric token', view.status === 200 && view.json.data.scenario.scenario_data.token === Number(token));
  check('If-None-Match → 304', (await call('GET', `/scenarios/${token}`, undefined, { 'If-None-Match': view.headers.get('etag')! })).status === 304);
  const chart = await fetch(view.json.data.scenario.chart_img);
  check('chart_img serves an SVG without a key', chart.status === 200 && (await chart.text()).startsWith('<svg'));
  const saved = await call('PUT', '/scenarios/save', { token, scenarioData: { ...data, year: 2025 } }, { 'If-Match': view.headers.get('etag')! });
  check('PUT /scenarios/save with If-Match → 200', saved.status === 200 && saved.json.data.scenario.scenario_data.year === 2025);
  const stale = await call('POST', '/scenarios/save', { token, scenarioData: data }, { 'If-Match': view.headers.get('etag')! });
  check('stale If-Match → 412', stale.status === 412 && stale.json.code === 'precondition_failed');
  const history = await call('GET', `/scenarios/${token}/revisions`);
  check('GET /scenarios/{token}/revisions → versions 2 and 1', history.status === 200 && history.json.data.map((r: { version: number }) => r.version).join() === '2,1');
  const diff = await call('GET', `/scenarios/${token}/diff?from=1`);
  check('GET /scenarios/{token}/diff → the year replaced', diff.status === 200 && JSON.stringify(diff.json.data.patch) === '[{"op":"replace","path":"/year","value":2025}]');
  const restored = await call('POST', `/scenarios/${token}/revisions/1/restore`, undefined, { 'If-Match': '"v2"' });
  check('POST …/revisions/1/restore → 200, version 3', restored.status === 200 && restored.headers.get('etag') === '"v3"');
  const revision = await call('GET', `/scenarios/${token}/revisions/3`);
  check('GET /scenarios/{token}/revisions/3 → the restored data', revision.status === 200 && revision.json.data.revision.scenario_data.year === data.year);
  const list = await call('GET', '/scenarios?limit=1');
  check('GET /scenarios → data + has_more', list.status === 200 && Array.isArray(list.json.data) && typeof list.json.has_more === 'boolean');
  const filtered = await call('GET', `/scenarios?state_id=${data.state_id}&year=${data.year}&program=eitc&updated_since=2000-01-01T00:00:00Z`);
  const found = filtered.json?.data?.find((item: { token: string }) => item.token === token);
  check('GET /scenarios filtered by state_id, year, program, updated_since → the scenario, version 3', filtered.status === 200 && found?.version === 3 && typeof found?.updated_at === 'string');
  const badFilter = await call('GET', '/scenarios?state_id=3');
  check('GET /scenarios?state_id=3 (no such state) → 400 invalid_query', badFilter.status === 400 && badFilter.json.code === 'invalid_query');
  const auth = { Authorization: `Bearer ${key}` };
  const lines = await fetch(`${base}/scenarios/export?state_id=${data.state_id}`, { headers: auth });
  const exported = (await lines.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { token: string });
  check('GET /scenarios/export → JSON Lines with the scenario', lines.status === 200 && /^application\/x-ndjson/.test(lines.headers.get('content-type') ?? '') && exported.some((item) => item.token === token));
  const csv = await fetch(`${base}/scenarios/export?format=csv&program=eitc`, { headers: auth });
  const rows = (await csv.text()).split('\r\n');
  check('GET /scenarios/export?format=csv → a header row and the scenario', csv.status === 200 && rows[0]!.startsWith('id,token,state_id,') && rows.some((row) => row.split(',')[1] === token));
  const patched = await call('PATCH', `/scenarios/${token}`, { year: 2027 }, { 'Content-Type': 'application/merge-patch+json', 'If-Match': '"v3"' });
  check(
    'PATCH (merge patch) with If-Match → 200, version 4, the year changed and the rest kept',
    patched.status === 200 && patched.headers.get('etag') === '"v4"' && patched.json.data.scenario.scenario_data.year === 2027 &&
      patched.json.data.scenario.scenario_data.adult[0].wage_rate === adult.wage_rate,
  );
  const stalePatch = await call('PATCH', `/scenarios/${token}`, [{ op: 'replace', path: '/year', value: 2028 }], { 'Content-Type': 'application/json-patch+json', 'If-Match': '"v3"' });
  check('PATCH (JSON Patch) with a stale If-Match → 412', stalePatch.status === 412);
  const plainJson = await call('PATCH', `/scenarios/${token}`, { year: 2028 });
  check('PATCH as application/json → 415 with Accept-Patch', plainJson.status === 415 && (plainJson.headers.get('accept-patch') ?? '').includes('application/merge-patch+json'));
  const link = await call('POST', `/scenarios/${token}/share_links`, { expires_in: 3600 });
  // npm start's PUBLIC_ORIGIN names localhost (a passkey's relying party cannot be an IP address).
  const publicOrigin = base.replace('//127.0.0.1:', '//localhost:');
  check('POST …/share_links → 201 with a URL on PUBLIC_ORIGIN', link.status === 201 && String(link.json.url).startsWith(`${publicOrigin}/shared/`), JSON.stringify(link.json));
  const page = await fetch(link.json.url);
  const pageText = await page.text();
  check(
    'the share link opens without a key: an HTML page with a strict CSP and no script',
    page.status === 200 && /^text\/html/.test(page.headers.get('content-type') ?? '') && pageText.includes('California') &&
      !pageText.includes('<script') && (page.headers.get('content-security-policy') ?? '').startsWith("default-src 'none'"),
  );
  const revokedLink = await call('DELETE', `/scenarios/${token}/share_links/${link.json.id}`);
  check('DELETE …/share_links/{id} → 200, and the link opens no more (404)', revokedLink.status === 200 && (await fetch(link.json.url)).status === 404);
  const bad = await call('POST', '/scenarios', { scenarioData: { ...data, year: 1800, extra: 1 } });
  check('invalid data → 422 problem with paths', bad.status === 422 && bad.json.errors.length === 2);
  check('GET /scenarios/save → 405', (await call('GET', '/scenarios/save')).status === 405);
  check('no key → 401', (await call('GET', '/me', undefined, { Authorization: '' })).status === 401);
  check('DELETE /scenarios/{token}/delete → 200', (await call('DELETE', `/scenarios/${token}/delete`)).status === 200);
  check('deleted → 404', (await call('GET', `/scenarios/${token}`)).status === 404);
  const doc = await call('GET', '/openapi.json');
  check('GET /openapi.json → OpenAPI 3.1', doc.status === 200 && doc.json.openapi === '3.1.0');
  const docs = await fetch(`${base}/docs`);
  check('GET /docs → the reference page', docs.status === 200 && (await docs.text()).includes('swagger-ui'));
  const bundle = await fetch(`${base}/docs/vendor/swagger-ui-bundle.js`);
  check('Swagger UI served by the Worker itself', bundle.status === 200 && (await bundle.arrayBuffer()).byteLength > 100_000);
  await checkWebhooks();
  check(
    'the served document names its environment (Spectral owasp:api9:2023-inventory-environment)',
    /(local|sandbox|alpha|beta|test|testing|stag|staging|prod|production|next|preprod|preproduction)/i.test(doc.json.servers?.[0]?.description ?? ''),
    JSON.stringify(doc.json.servers),
  );
  await sendCredentialsInUrls();
  await hangUpMidBody();
} finally {
  await service.stop();
  receiver.server.close();
}
checkNothingOnDisk();
console.log(checks.summary());
process.exitCode = checks.failed === 0 ? 0 : 1;
