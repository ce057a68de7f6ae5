// npm run soak: a bounded mixed load against the service as users run it (`npm start` on
// loopback), then a full read-back. Every acknowledged write (201 create, 200 save, 200 delete) is
// recorded; afterwards each account's scenarios are listed and read, and must be exactly the
// acknowledged state: nothing lost, nothing resurrected, no duplicate from a retried create.
// Each account also has a webhook endpoint on a loopback receiver that answers 503 to a share of
// deliveries (SOAK_WEBHOOK_FLAKY, default 0.05), so some are retried: once the load is over, the
// events each account lists, the changes it was acknowledged and the distinct events its receiver
// got (signatures verified with standardwebhooks) must all be equal.
// Last lines: ops, errors by status, 5xx, acknowledged writes lost; events vs changes vs deliveries.
import { isDeepStrictEqual } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { startService } from './lib/service.ts';
import { startReceiver, type ReceivedDelivery } from './lib/webhook-receiver.ts';

const OPS = Number(process.env.SOAK_OPS ?? 20_000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 32);
const KEYS_PER_WORKER = 3; // the per-key limit is 600 requests a minute
const MAX_SECONDS = Number(process.env.SOAK_MAX_SECONDS ?? 900);
const WEBHOOK_FLAKY = Number(process.env.SOAK_WEBHOOK_FLAKY ?? 0.05);
/** After the load: how long the deliveries (and their retries, 1 s, 2 s, 4 s… apart under npm start) may take. */
/** standardwebhooks' window for a signature's timestamp. */
const TOLERANCE_SECONDS = 5 * 60;
const DELIVERY_WAIT_SECONDS = Number(process.env.SOAK_DELIVERY_WAIT_SECONDS ?? 180);

type Json = Record<string, unknown>;
interface Ack {
  data: Json;
  etag: string;
}

const receiver = await startReceiver();
const service = await startService(process.env.SOAK_PORT ?? '8795');
const statuses = new Map<number, number>();
let ops = 0;
let lost = 0;
const problems: string[] = [];
const started = Date.now();

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(service.base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get('etag') ?? '', json: (text ? JSON.parse(text) : {}) as Json & { data?: any } };
}

function record(status: number): void {
  ops++;
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const amount = () => (Math.random() < 0.5 ? '0' : (Math.random() * 3000).toFixed(2));
const flag = () => (Math.random() < 0.5 ? 0 : 1);

function household(): Json {
  const adult = (id: number) => ({
    id, age: 18 + Math.floor(Math.random() * 60), nickname: `Adult ${id}`, wage_rate: amount(), yes_or_no: flag(),
    adult_type: 1, is_married: flag(), is_veteran: flag(), unemp_comp: amount(), is_pregnant: 0, monthly_ssi: amount(),
    child_support: amount(), other_unearned: amount(), monthly_disability: amount(), soc_sec_retirement: amount(),
    same_snap_household: 1, work_hours_per_week: String(Math.floor(Math.random() * 60)), is_spouse_in_household: flag(),
    same_legal_hh_fed_state: 1, training_hours_per_week: '0', aged_or_disability_income: 0,
  });
  const child = (id: number) => ({
    id, age: Math.floor(Math.random() * 18), sex: 1 + flag(), caretaker: 1, in_school: flag(), yes_or_no: 1, is_disabled: 0,
    cc_rate_category: 1, ssi_income_amount: '0', child_care_setting: 1, relation_to_caretaker: 1, same_legal_hh_fed_state: 1,
    purchase_and_prepare_meals_together: 1,
  });
  return {
    year: 2000 + Math.floor(Math.random() * 30),
    state_id: pick([1, 6, 11, 36, 48, 56]),
    programs: ['snap', 'eitc', 'ctc'].slice(0, 1 + Math.floor(Math.random() * 3)),
    adult: [adult(1), adult(2)],
    child: [child(1), child(2)],
  };
}

interface Account {
  keys: string[];
  /** The receiver's name for this account's endpoint, and the endpoint's secret. */
  hook: string;
  secret: string;
}

async function setUpWorker(index: number): Promise<Account> {
  const admin = { Authorization: `Bearer ${service.adminToken}`, 'Content-Type': 'application/json' };
  const account = await fetch(`${service.base}/admin/accounts`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: `Soak ${index}`, email: `soak-${Date.now()}-${index}@example.com` }),
  }).then((r) => r.json() as Promise<{ id: number }>);
  const keys: string[] = [];
  for (let k = 0; k < KEYS_PER_WORKER; k++) {
    const created = await fetch(`${service.base}/admin/accounts/${account.id}/keys`, { method: 'POST', headers: admin, body: '{}' });
    keys.push(((await created.json()) as { key: string }).key);
  }
  const hook = `soak-${Date.now()}-${index}`;
  const endpoint = await call(keys[0]!, 'POST', '/webhook_endpoints', { url: `${receiver.url}/hook/${hook}?flaky=${WEBHOOK_FLAKY}` });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint not created: ${endpoint.status}`);
  return { keys, hook, secret: endpoint.json.secret as string };
}

/** One worker owns one account, so its acknowledged writes are the only writes to those rows. */
async function worker({ keys, hook, secret }: Account, budget: number) {
  const live = new Map<string, Ack>();
  const deleted = new Set<string>();
  /** Creates (not replays), saves and deletes acknowledged: each must have recorded one event. */
  let changes = 0;
  for (let i = 0; i < budget && (Date.now() - started) / 1000 < MAX_SECONDS; i++) {
    const key = keys[i % keys.length]!;
    const tokens = [...live.keys()];
    const roll = Math.random();
    if (roll < 0.25 || tokens.length === 0) {
      const idempotencyKey = crypto.randomUUID();
      const body = { scenarioData: household() };
      const res = await call(key, 'POST', '/scenarios', body, { 'Idempotency-Key': idempotencyKey });
      record(res.status);
      if (res.status === 201) {
        changes++;
        const token = res.json.data.scenario.token as string;
        live.set(token, { data: res.json.data.scenario.scenario_data, etag: res.etag });
        // Now and then a client retries a create it already got: it must not create twice.
        if (Math.random() < 0.1) {
          const retry = await call(key, 'POST', '/scenarios', body, { 'Idempotency-Key': idempotencyKey });
          record(retry.status);
          if (retry.status !== 201 || retry.json.data.scenario.token !== token) problems.push(`retried create gave ${retry.status}`);
        }
      }
    } else if (roll < 0.5) {
      const token = pick(tokens);
      const scenarioData = household();
      const res = await call(key, 'POST', '/scenarios/save', { token, scenarioData }, { 'If-Match': live.get(token)!.etag });
      record(res.status);
      if (res.status === 200) {
        changes++;
        live.set(token, { data: res.json.data.scenario.scenario_data, etag: res.etag });
      } else if (res.status === 412) problems.push(`save of ${token} refused as stale though only this worker writes it`);
    } else if (roll < 0.75) {
      const res = await call(key, 'GET', `/scenarios/${pick(tokens)}`);
      record(res.status);
    } else if (roll < 0.9) {
      const res = await call(key, 'GET', `/scenarios?limit=${1 + Math.floor(Math.random() * 20)}`);
      record(res.status);
    } else {
      const token = pick(tokens);
      const res = await call(key, 'DELETE', `/scenarios/${token}`);
      record(res.status);
      if (res.status === 200) {
        changes++;
        live.delete(token);
        deleted.add(token);
      }
    }
  }
  return { key: keys[0]!, live, deleted, changes, hook, secret };
}

/** The ids of every event the account lists (GET /events, all pages). */
async function listedEvents(key: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await call(key, 'GET', `/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    for (const event of page.json.data as Array<{ id: string }>) {
      ids.add(event.id);
      cursor = event.id;
    }
    if (page.status !== 200 || !page.json.has_more) return ids;
  }
}

/** Distinct event ids the receiver got for `hook` with a valid signature, how many requests it got in all, and why any was refused. */
function deliveredEvents(hook: string, secret: string): { ids: Set<string>; requests: number; answered: number; refused: string[] } {
  const webhook = new Webhook(secret);
  const ids = new Set<string>();
  const refused: string[] = [];
  const requests = receiver.received(hook);
  for (const delivery of requests) {
    if (delivery.answered < 200 || delivery.answered > 299) continue;
    const why = refusal(webhook, delivery);
    if (why) refused.push(`${hook}: a delivery a receiver would refuse: ${why}`);
    else ids.add((JSON.parse(delivery.body) as { id: string }).id);
  }
  return { ids, refused, requests: requests.length, answered: requests.filter((d) => d.answered >= 200 && d.answered < 300).length };
}

/**
 * Why a receiver would refuse `delivery`, judged as of its arrival: a signature of ours matches, and
 * its timestamp is within standardwebhooks' 5 minutes of when it arrived. (`Webhook.verify` judges
 * the timestamp against now, and the soak reads deliveries back long after they arrived.)
 */
function refusal(webhook: Webhook, delivery: ReceivedDelivery): string | undefined {
  const id = delivery.headers['webhook-id'] ?? '';
  const timestamp = Number(delivery.headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp)) return 'no webhook-timestamp';
  const expected = webhook.sign(id, new Date(timestamp * 1000), delivery.body);
  if (!(delivery.headers['webhook-signature'] ?? '').split(' ').includes(expected)) return 'no signature matches';
  if (Math.abs(delivery.at / 1000 - timestamp) > TOLERANCE_SECONDS) return `signed ${Math.round(delivery.at / 1000 - timestamp)} s before it arrived`;
  return undefined;
}

/** Waits for every account's deliveries to catch up with its events; the three counts, summed. */
async function verifyWebhooks(results: Array<Awaited<ReturnType<typeof worker>>>) {
  const events = await Promise.all(results.map((r) => listedEvents(r.key)));
  const deadline = Date.now() + DELIVERY_WAIT_SECONDS * 1000;
  const caughtUp = () => results.every((r, i) => deliveredEvents(r.hook, r.secret).ids.size >= (events[i]?.size ?? 0));
  while (!caughtUp() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
  const totals = { events: 0, changes: 0, delivered: 0, requests: 0, duplicates: 0, lost: 0 };
  results.forEach((r, i) => {
    const listed = events[i] ?? new Set<string>();
    const got = deliveredEvents(r.hook, r.secret);
    totals.events += listed.size;
    totals.changes += r.changes;
    totals.delivered += got.ids.size;
    totals.requests += got.requests;
    totals.duplicates += got.answered - got.ids.size;
    const missing = [...listed].filter((id) => !got.ids.has(id));
    totals.lost += missing.length;
    problems.push(...got.refused.slice(0, 3));
    if (listed.size !== r.changes) problems.push(`${r.hook}: ${listed.size} events recorded for ${r.changes} acknowledged changes`);
    for (const id of missing.slice(0, 3)) problems.push(`${r.hook}: event ${id} never delivered`);
    for (const id of got.ids) if (!listed.has(id)) problems.push(`${r.hook}: delivered ${id}, which the account does not list`);
  });
  return totals;
}

/** Reads everything back: the listed tokens must be exactly the live ones, each with its last acknowledged data. */
async function verify({ key, live, deleted }: Awaited<ReturnType<typeof worker>>): Promise<void> {
  const listed = new Set<string>();
  let cursor: number | undefined;
  for (;;) {
    const page = await call(key, 'GET', `/scenarios?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    for (const item of page.json.data as Array<{ id: number; token: string }>) {
      listed.add(item.token);
      cursor = item.id;
    }
    if (!page.json.has_more) break;
  }
  for (const [token, ack] of live) {
    const view = await call(key, 'GET', `/scenarios/${token}`);
    if (!listed.has(token) || view.status !== 200 || !isDeepStrictEqual(view.json.data.scenario.scenario_data, ack.data)) {
      lost++;
      problems.push(`${token}: acknowledged write not read back (status ${view.status}, listed ${listed.has(token)})`);
    }
  }
  for (const token of deleted) {
    if (listed.has(token) || (await call(key, 'GET', `/scenarios/${token}`)).status !== 404) {
      lost++;
      problems.push(`${token}: acknowledged delete undone`);
    }
  }
  for (const token of listed) if (!live.has(token) && !deleted.has(token)) problems.push(`${token}: listed but never acknowledged (duplicate create?)`);
}

try {
  const accounts = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => setUpWorker(i)));
  const budget = Math.ceil(OPS / CONCURRENCY);
  const results = await Promise.all(accounts.map((account) => worker(account, budget)));
  const seconds = (Date.now() - started) / 1000;
  for (const result of results) await verify(result);
  const webhooks = await verifyWebhooks(results);
  for (const problem of problems.slice(0, 20)) console.log(`problem: ${problem}`);
  const fiveXX = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const byStatus = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
  console.log(`soak: ${ops} ops in ${seconds.toFixed(1)} s at concurrency ${CONCURRENCY} (${(ops / seconds).toFixed(0)} ops/s), ${problems.length} problems`);
  console.log(`ops ${ops}, errors by status ${JSON.stringify(Object.fromEntries(Object.entries(byStatus).filter(([s]) => Number(s) >= 400)))}, 5xx ${fiveXX}, acknowledged writes lost ${lost}`);
  console.log(
    `webhooks: events recorded ${webhooks.events}, changes acknowledged ${webhooks.changes}, deliveries received ${webhooks.delivered} ` +
      `(distinct events, signatures verified; ${webhooks.requests} requests with the ${(WEBHOOK_FLAKY * 100).toFixed(0)} % answered 503 and retried, ` +
      `${webhooks.duplicates} duplicate 2xx), lost ${webhooks.lost}`,
  );
  const webhooksEqual = webhooks.events === webhooks.changes && webhooks.delivered === webhooks.events && webhooks.lost === 0;
  process.exitCode = fiveXX === 0 && lost === 0 && problems.length === 0 && webhooksEqual ? 0 : 1;
} finally {
  await service.stop();
  receiver.server.close();
}
