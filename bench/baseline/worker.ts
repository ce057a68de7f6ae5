// The raw baseline of `npm run bench`: the benchmarked routes of the Scenario Service written
// as a plain `fetch` handler with hand-written D1 prepared statements — no Hono, drizzle or zod.
// It does the same work per request as the service (bearer parsing, key checksum, SHA-256 of the
// key, the rate-limit binding keyed by the key's hash, one D1 batch per request holding the
// key+account row and the statements the key guards (the same SQL on the same indexes, events
// included), revoked/expired/scope checks of the key row, the last_used_at touch, hand-written
// validation of the same rules, JSON.parse of scenario_data, an HMAC-signed chart_img, and the
// same response bodies and headers), so the service's overhead over it is the cost of its
// framework layers.
//
// Self-contained on purpose (nothing imported from src/): it is a fixed yardstick, and changes
// to the service must not move it.
//
// Frozen at the service of commit 7f4fa50 (2026-11-27): the specification's routes as they were
// answered then. It is no longer brought in step with the service (six commits had to, each time
// a reply or a statement changed). What it measures stays meaningful: the cost of the service's
// framework layers for the specification's operations. A change of the service is measured
// against the service before it instead: `BENCH_AGAINST=<a build of the commit before>` with
// `npm run bench:instructions` (counted, ±1 %) or `npm run bench` (bench/README.md). Where the
// service has moved on since (a header, a field), the parity check says so, and the bench's
// ratios include what the service does more. One change since, for the schema it runs on: a
// revision is recorded without its data (drizzle/0012 dropped that column; docs/decisions.md,
// "Compact history").

interface BaselineEnv {
  DB: D1Database;
  KEY_RATE_LIMITER: RateLimit;
  AUTH_FAILURE_LIMITER: RateLimit;
  ADMIN_TOKEN?: string;
  CHART_SIGNING_KEY?: string;
  SCENARIO_RETENTION_DAYS?: string;
  CHART_URL_TTL_SECONDS?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  WEBHOOK_QUEUE: Queue;
}

// ---------------------------------------------------------------------------------------------
// Reference data and constants (as in src/)

const STATES: ReadonlyArray<readonly [number, string]> = [
  [1, 'Alabama'], [2, 'Alaska'], [4, 'Arizona'], [5, 'Arkansas'], [6, 'California'],
  [8, 'Colorado'], [9, 'Connecticut'], [10, 'Delaware'], [11, 'District of Columbia'],
  [12, 'Florida'], [13, 'Georgia'], [15, 'Hawaii'], [16, 'Idaho'], [17, 'Illinois'],
  [18, 'Indiana'], [19, 'Iowa'], [20, 'Kansas'], [21, 'Kentucky'], [22, 'Louisiana'],
  [23, 'Maine'], [24, 'Maryland'], [25, 'Massachusetts'], [26, 'Michigan'], [27, 'Minnesota'],
  [28, 'Mississippi'], [29, 'Missouri'], [30, 'Montana'], [31, 'Nebraska'], [32, 'Nevada'],
  [33, 'New Hampshire'], [34, 'New Jersey'], [35, 'New Mexico'], [36, 'New York'],
  [37, 'North Carolina'], [38, 'North Dakota'], [39, 'Ohio'], [40, 'Oklahoma'], [41, 'Oregon'],
  [42, 'Pennsylvania'], [44, 'Rhode Island'], [45, 'South Carolina'], [46, 'South Dakota'],
  [47, 'Tennessee'], [48, 'Texas'], [49, 'Utah'], [50, 'Vermont'], [51, 'Virginia'],
  [53, 'Washington'], [54, 'West Virginia'], [55, 'Wisconsin'], [56, 'Wyoming'],
];
interface State {
  id: number;
  name: string;
  slug: string;
}
const STATE_BY_ID = new Map<number, State>(
  STATES.map(([id, name]) => [id, { id, name, slug: name.toLowerCase().replaceAll(' ', '-') }]),
);

const PROGRAMS = new Set([
  'actc', 'ctc', 'eitc', 'state_tax', 'state_eitc', 'child_care', 'tanf', 'ssi', 'liheap', 'fica',
  'snap', 'medic_aid', 'hix_ptc', 'chip', 'housing', 'wic', 'pandemic', 'fed_tax', 'nslp',
]);
const TOKEN_PATTERN = /^[1-9][0-9]{14}$/;
const DECIMAL_PATTERN = /^[0-9]{1,12}(\.[0-9]{1,6})?$/;
const CURSOR = /^[1-9][0-9]{0,15}$/;
const LIMIT = /^[0-9]{1,3}$/;
const MAX_INT32 = 2_147_483_647;
const MAX_MEMBERS = 20;
const MAX_BODY_BYTES = 256 * 1024;
const RAY_ID = /^[0-9A-Za-z-]{1,64}$/;
const LAST_USED_GRANULARITY_MS = 60_000;
const DAY_MS = 86_400_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^scn_[0-9A-Za-z]{36}$/;
const EXPOSE_HEADERS = 'ETag,Location,Retry-After,X-Request-Id,Idempotent-Replayed,RateLimit-Policy,RateLimit,X-D1-Bookmark';
const BOOKMARK_PATTERN = /^[0-9A-Za-z-]{1,256}$/;
const FAILED_AUTH_POLICY = '"failed-auth";q=60;w=60';
/** The service's hardening headers (src/http/middleware.ts). */
const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
];

// ---------------------------------------------------------------------------------------------
// Responses

class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly headers: Record<string, string>;
  readonly errors: Array<{ path: string; message: string }> | undefined;

  constructor(
    status: number,
    code: string,
    title: string,
    detail: string,
    headers: Record<string, string> = {},
    errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.title = title;
    this.headers = headers;
    this.errors = errors;
  }
}

function problem(error: HttpError, requestId: string): Response {
  const body: Record<string, unknown> = {
    type: `tag:scenario-service,2026:problems/${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors) body.errors = error.errors;
  const headers = new Headers(error.headers);
  headers.set('Content-Type', 'application/problem+json; charset=utf-8');
  headers.set('Cache-Control', 'no-store');
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  const h = new Headers(headers);
  h.set('Content-Type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers: h });
}

const notFound = () => new HttpError(404, 'not_found', 'Not found', 'No scenario with that token');

function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

function etagFor(version: number): string {
  return `"v${version}"`;
}

function noneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .some((t) => t === '*' || t.replace(/^W\//, '') === etag);
}

function parseIfMatch(header: string): { any: true } | { any: false; versions: number[] } {
  const list = header.split(',').map((t) => t.trim()).filter(Boolean);
  if (list.includes('*')) return { any: true };
  const versions: number[] = [];
  for (const t of list) {
    const m = /^"v([1-9][0-9]{0,15})"$/.exec(t);
    if (m) versions.push(Number(m[1]));
  }
  return { any: false, versions };
}

// ---------------------------------------------------------------------------------------------
// Keys and signing

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function wellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -6);
  let crc = 0xffffffff;
  for (let i = 0; i < body.length; i++) crc = (CRC_TABLE[(crc ^ body.charCodeAt(i)) & 0xff] ?? 0) ^ (crc >>> 8);
  let n = (crc ^ 0xffffffff) >>> 0;
  let sum = '';
  for (let i = 0; i < 6; i++) {
    sum = BASE62[n % 62] + sum;
    n = Math.floor(n / 62);
  }
  return sum === key.slice(-6);
}

const encoder = new TextEncoder();

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  let hex = '';
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, '0');
  return hex;
}

let hmacKey: { secret: string; key: Promise<CryptoKey> } | undefined;

async function signChartUrl(env: BaselineEnv, origin: string, accountId: number, token: string, now: number): Promise<string> {
  const ttl = Number(env.CHART_URL_TTL_SECONDS) > 0 ? Number(env.CHART_URL_TTL_SECONDS) : 3600;
  const exp = Math.floor(now / 1000) + ttl;
  const path = `${origin}/scenarios/${token}/chart.svg?exp=${exp}`;
  const secret = env.CHART_SIGNING_KEY || (env.ADMIN_TOKEN ? `chart-url-signing:${env.ADMIN_TOKEN}` : '');
  if (!secret) return `${path}&sig=unsigned`;
  if (hmacKey?.secret !== secret) {
    hmacKey = {
      secret,
      key: crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
    };
  }
  const mac = await crypto.subtle.sign('HMAC', await hmacKey.key, encoder.encode(`chart:v1:${accountId}:${token}:${exp}`));
  let binary = '';
  for (const b of new Uint8Array(mac)) binary += String.fromCharCode(b);
  const sig = btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  return `${path}&sig=${accountId}.${sig}`;
}

function generateToken(): string {
  const bytes = new Uint8Array(32);
  let token = '';
  while (token.length < 15) {
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      if (token.length === 15) break;
      if (token.length === 0) {
        if (b < 252) token += String(1 + (b % 9));
      } else if (b < 250) {
        token += String(b % 10);
      }
    }
  }
  return token;
}

// ---------------------------------------------------------------------------------------------
// Authentication: the key's hash travels with each request's batch (no query of its own)

interface Caller {
  keyId: number;
  accountId: number;
  scope: string;
  name: string;
  email: string;
}

interface KeyRow {
  id: number;
  scope: string;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  account_id: number;
  account_name: string;
  account_email: string;
}

/** What a request presents: its key's hash, the time it is judged at, its client address. */
interface KeyCheck {
  hash: string;
  now: number;
  address: string;
}

const KEY_QUERY =
  'SELECT k.id, k.scope, k.expires_at, k.revoked_at, k.last_used_at, a.id AS account_id, a.name AS account_name, ' +
  'a.email AS account_email FROM api_keys k INNER JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?';
const TOUCH_KEY = 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)';
// A live key from an address that is not throttled (bound: keyParams), and the account of one as
// a scalar sub-select.
const LIVE =
  'key_hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ' +
  'AND NOT EXISTS (SELECT 1 FROM auth_throttles WHERE address = ? AND until > ?)';
const THROTTLE = 'SELECT until FROM auth_throttles WHERE address = ? AND until > ?';
const keyParams = (key: KeyCheck) => [key.hash, key.now, key.address, key.now];
const LIVE_WRITE = `${LIVE} AND scope = 'read_write'`;
const ACCOUNT_OF_KEY = `(SELECT account_id FROM api_keys WHERE ${LIVE})`;
const ACCOUNT_OF_WRITE_KEY = `(SELECT account_id FROM api_keys WHERE ${LIVE_WRITE})`;

function keyPolicy(env: BaselineEnv): string {
  const q = /^[1-9][0-9]{0,8}$/.test(env.RATE_LIMIT_PER_MINUTE ?? '') ? env.RATE_LIMIT_PER_MINUTE : '600';
  return `"per-key";q=${q};w=60`;
}

async function authFailure(request: Request, env: BaselineEnv, detail: string): Promise<HttpError> {
  const { success } = await env.AUTH_FAILURE_LIMITER.limit({ key: request.headers.get('cf-connecting-ip') ?? 'unknown' });
  if (!success) {
    return new HttpError(429, 'rate_limited', 'Too many requests', 'Too many failed authentication attempts; wait a minute', {
      'Retry-After': '60',
      'RateLimit-Policy': FAILED_AUTH_POLICY,
      RateLimit: '"failed-auth";r=0;t=60',
    });
  }
  return new HttpError(401, 'unauthorized', 'Unauthorized', detail, {
    'WWW-Authenticate': 'Bearer realm="scenario-service", error="invalid_token"',
    'RateLimit-Policy': FAILED_AUTH_POLICY,
  });
}

/** The key of the request, checked for shape and rate; D1 judges it with the request's batch. */
async function presentedKey(request: Request, env: BaselineEnv): Promise<KeyCheck> {
  const header = request.headers.get('Authorization');
  const key = header ? (/^Bearer +([^\s]+) *$/i.exec(header)?.[1] ?? null) : null;
  if (key === null) {
    throw new HttpError(401, 'unauthorized', 'Unauthorized', 'Send your API key as Authorization: Bearer <API key>', {
      'WWW-Authenticate': 'Bearer realm="scenario-service"',
      'RateLimit-Policy': FAILED_AUTH_POLICY,
    });
  }
  if (!wellFormedKey(key)) throw await authFailure(request, env, 'The API key is not valid');
  const hash = await sha256Hex(key);
  const limit = await env.KEY_RATE_LIMITER.limit({ key: hash });
  if (!limit.success) {
    throw new HttpError(429, 'rate_limited', 'Too many requests', 'This key is over its limit', {
      'Retry-After': '60',
      'RateLimit-Policy': keyPolicy(env),
      RateLimit: '"per-key";r=0;t=60',
    });
  }
  return { hash, now: Date.now(), address: request.headers.get('cf-connecting-ip') ?? 'unknown' };
}

/** The key row that came back with the batch, judged; then the last_used_at touch, as the service. */
async function judge(
  request: Request,
  env: BaselineEnv,
  ctx: ExecutionContext,
  key: KeyCheck,
  row: KeyRow | undefined,
  write: boolean,
  throttled: boolean,
): Promise<Caller> {
  const now = key.now;
  if (throttled) {
    throw new HttpError(429, 'rate_limited', 'Too many requests', 'Too many failed authentication attempts; wait a minute', {
      'Retry-After': '60',
      'RateLimit-Policy': FAILED_AUTH_POLICY,
      RateLimit: '"failed-auth";r=0;t=60',
    });
  }
  if (!row) throw await authFailure(request, env, 'The API key is not valid');
  if (row.revoked_at !== null) throw await authFailure(request, env, 'The API key has been revoked');
  if (row.expires_at !== null && row.expires_at <= now) throw await authFailure(request, env, 'The API key has expired');
  if (write && row.scope !== 'read_write') {
    throw new HttpError(403, 'forbidden', 'Forbidden', 'This API key is read-only; writing needs a read_write key', { 'RateLimit-Policy': keyPolicy(env) });
  }
  if (row.last_used_at === null || row.last_used_at < now - LAST_USED_GRANULARITY_MS) {
    ctx.waitUntil(
      env.DB.prepare(TOUCH_KEY)
        .bind(now, row.id, now - LAST_USED_GRANULARITY_MS)
        .run()
        .catch(() => undefined),
    );
  }
  return { keyId: row.id, accountId: row.account_id, scope: row.scope, name: row.account_name, email: row.account_email };
}

/** Runs the address's throttle, the key's row and `statements` as one batch: one round trip. */
async function withKey(
  env: BaselineEnv,
  key: KeyCheck,
  statements: D1PreparedStatement[],
): Promise<{ throttled: boolean; keyRow: KeyRow | undefined; results: Array<Record<string, unknown>[]> }> {
  const [throttle, keyResult, ...rest] = await env.DB.batch<Record<string, unknown>>([
    env.DB.prepare(THROTTLE).bind(key.address, key.now),
    env.DB.prepare(KEY_QUERY).bind(key.hash),
    ...statements,
  ]);
  return { throttled: (throttle?.results.length ?? 0) > 0, keyRow: keyResult?.results[0] as KeyRow | undefined, results: rest.map((r) => r.results) };
}

// ---------------------------------------------------------------------------------------------
// Validation of scenario data (the rules of src/scenarios/schema.ts, by hand)

type Errors = Array<{ path: string; message: string }>;
type Kind = 'int' | 'age' | 'code' | 'flag' | 'money' | 'hours' | 'name' | 'position';

const ADULT: ReadonlyArray<readonly [string, Kind, boolean]> = [
  ['id', 'position', true], ['age', 'age', false], ['nickname', 'name', true], ['wage_rate', 'money', false],
  ['yes_or_no', 'flag', false], ['adult_type', 'code', false], ['is_married', 'flag', false], ['is_veteran', 'flag', false],
  ['unemp_comp', 'money', false], ['is_pregnant', 'flag', true], ['monthly_ssi', 'money', false],
  ['child_support', 'money', false], ['other_unearned', 'money', false], ['monthly_disability', 'money', false],
  ['soc_sec_retirement', 'money', false], ['same_snap_household', 'flag', false], ['work_hours_per_week', 'hours', false],
  ['is_spouse_in_household', 'flag', false], ['same_legal_hh_fed_state', 'flag', false],
  ['training_hours_per_week', 'hours', false], ['aged_or_disability_income', 'code', false],
];
const CHILD: ReadonlyArray<readonly [string, Kind, boolean]> = [
  ['id', 'position', true], ['age', 'age', false], ['sex', 'code', false], ['caretaker', 'code', false],
  ['in_school', 'code', false], ['yes_or_no', 'flag', false], ['is_disabled', 'flag', false],
  ['cc_rate_category', 'code', false], ['ssi_income_amount', 'money', true], ['child_care_setting', 'code', false],
  ['relation_to_caretaker', 'code', false], ['same_legal_hh_fed_state', 'flag', false],
  ['purchase_and_prepare_meals_together', 'flag', false],
];
const ADULT_KEYS = new Set(ADULT.map(([k]) => k));
const CHILD_KEYS = new Set(CHILD.map(([k]) => k));
const DATA_KEYS = new Set(['year', 'state_id', 'state', 'token', 'programs', 'adult', 'child', 'sub_division']);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkAmount(value: unknown, max: number | undefined): string | null {
  const message = 'must be a non-negative decimal number (at most 12 digits before the point and 6 after)';
  if (typeof value === 'string') {
    if (!DECIMAL_PATTERN.test(value)) return message;
  } else if (typeof value === 'number') {
    if (!(value >= 0) || !DECIMAL_PATTERN.test(String(value))) return message;
  } else {
    return message;
  }
  if (max !== undefined && Number(value) > max) return `must be at most ${max}`;
  return null;
}

function checkField(kind: Kind, value: unknown): string | null {
  switch (kind) {
    case 'int':
      return isInt(value) ? null : 'must be an integer';
    case 'age':
      return isInt(value) && value >= 0 && value <= 130 ? null : 'must be an integer from 0 to 130';
    case 'code':
      return isInt(value) && value >= 0 && value <= MAX_INT32 ? null : 'must be an integer from 0 to 2147483647';
    case 'flag':
      return value === 0 || value === 1 ? null : 'must be 0 or 1';
    case 'money':
      return checkAmount(value, undefined);
    case 'hours':
      return checkAmount(value, 168);
    case 'name':
      return typeof value === 'string' && value.length <= 100 ? null : 'must be a string of at most 100 characters';
    case 'position':
      return isInt(value) && value >= 1 ? null : 'must be a positive integer';
  }
}

function checkMembers(
  value: unknown,
  path: string,
  fields: ReadonlyArray<readonly [string, Kind, boolean]>,
  known: Set<string>,
  min: number,
  errors: Errors,
): void {
  if (!Array.isArray(value)) {
    errors.push({ path, message: 'must be an array' });
    return;
  }
  if (value.length < min || value.length > MAX_MEMBERS) errors.push({ path, message: `must have ${min} to ${MAX_MEMBERS} items` });
  value.forEach((member: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(member)) {
      errors.push({ path: at, message: 'must be an object' });
      return;
    }
    for (const key of Object.keys(member)) if (!known.has(key)) errors.push({ path: `${at}.${key}`, message: 'is not a known field' });
    for (const [key, kind, optional] of fields) {
      const v = member[key];
      if (v === undefined) {
        if (!optional) errors.push({ path: `${at}.${key}`, message: 'is required' });
        continue;
      }
      const problem = checkField(kind, v);
      if (problem) errors.push({ path: `${at}.${key}`, message: problem });
      else if (key === 'id' && v !== index + 1) errors.push({ path: `${at}.id`, message: `must be ${index + 1}, the 1-based position in the array (or left out)` });
    }
  });
}

function checkData(data: unknown, path: string, errors: Errors): void {
  if (!isObject(data)) {
    errors.push({ path, message: 'must be an object' });
    return;
  }
  for (const key of Object.keys(data)) if (!DATA_KEYS.has(key)) errors.push({ path: `${path}.${key}`, message: 'is not a known field' });
  if (!(isInt(data.year) && data.year >= 1990 && data.year <= 2100)) errors.push({ path: `${path}.year`, message: 'must be an integer from 1990 to 2100' });
  for (const key of ['state_id', 'state', 'sub_division'] as const) {
    const v = data[key];
    if (v !== undefined && !(isInt(v) && v >= 1 && v <= MAX_INT32)) errors.push({ path: `${path}.${key}`, message: 'must be an integer from 1 to 2147483647' });
  }
  const token = data.token;
  if (token !== undefined && !((typeof token === 'string' && token.length <= 64) || isInt(token))) {
    errors.push({ path: `${path}.token`, message: 'must be a string or an integer' });
  }
  const programs = data.programs;
  if (!Array.isArray(programs) || programs.length < 1 || programs.length > PROGRAMS.size) {
    errors.push({ path: `${path}.programs`, message: `must be an array of 1 to ${PROGRAMS.size} programs` });
  } else {
    const seen = new Set<unknown>();
    programs.forEach((p: unknown, i) => {
      if (typeof p !== 'string' || !PROGRAMS.has(p)) errors.push({ path: `${path}.programs[${i}]`, message: 'is not a known program' });
      else if (seen.has(p)) errors.push({ path: `${path}.programs[${i}]`, message: `"${p}" is listed twice` });
      seen.add(p);
    });
  }
  checkMembers(data.adult, `${path}.adult`, ADULT, ADULT_KEYS, 1, errors);
  if (data.child !== undefined) checkMembers(data.child, `${path}.child`, CHILD, CHILD_KEYS, 0, errors);
  const { state_id: byId, state: bySynonym } = data;
  if (byId === undefined && bySynonym === undefined) {
    errors.push({ path: `${path}.state_id`, message: 'is required (or give its synonym `state`)' });
  } else if (byId !== undefined && bySynonym !== undefined && byId !== bySynonym) {
    errors.push({ path: `${path}.state`, message: 'must equal state_id when both are given' });
  } else {
    const v = byId ?? bySynonym;
    if (isInt(v) && v >= 1 && v <= MAX_INT32 && !STATE_BY_ID.has(v)) {
      errors.push({ path: `${path}.${byId !== undefined ? 'state_id' : 'state'}`, message: 'is not a known state (FIPS code of a US state or DC)' });
    }
  }
}

/** The validated body's scenario data; throws 422 with every problem found. */
function validateBody(body: unknown, withToken: boolean): { data: Record<string, unknown>; token?: string } {
  const errors: Errors = [];
  if (!isObject(body)) throw new HttpError(422, 'validation_failed', 'Validation failed', 'The request body has 1 problem; see errors', {}, [{ path: '', message: 'must be an object' }]);
  for (const key of Object.keys(body)) {
    if (key !== 'scenarioData' && key !== 'scenario_data' && !(withToken && key === 'token')) errors.push({ path: key, message: 'is not a known field' });
  }
  let token: string | undefined;
  if (withToken) {
    const t = body.token;
    if (typeof t === 'string' && TOKEN_PATTERN.test(t)) token = t;
    else if (isInt(t) && t >= 100_000_000_000_000 && t <= 999_999_999_999_999) token = String(t);
    else errors.push({ path: 'token', message: 'must be a scenario token: 15 digits, as a string or a number' });
  }
  const camel = body.scenarioData !== undefined;
  const snake = body.scenario_data !== undefined;
  if (!camel && !snake) errors.push({ path: 'scenarioData', message: 'is required' });
  if (camel && snake) errors.push({ path: 'scenario_data', message: 'give scenarioData or scenario_data, not both' });
  const data = camel ? body.scenarioData : body.scenario_data;
  if (camel || snake) checkData(data, camel ? 'scenarioData' : 'scenario_data', errors);
  if (errors.length > 0) {
    const count = `${errors.length} problem${errors.length === 1 ? '' : 's'}`;
    throw new HttpError(422, 'validation_failed', 'Validation failed', `The request body has ${count}; see errors`, {}, errors);
  }
  return token === undefined ? { data: data as Record<string, unknown> } : { data: data as Record<string, unknown>, token };
}

const ADULT_AMOUNTS = new Set(ADULT.filter(([, k]) => k === 'money' || k === 'hours').map(([k]) => k));
const CHILD_AMOUNTS = new Set(['ssi_income_amount']);

function normaliseMember(member: Record<string, unknown>, index: number, fields: ReadonlyArray<readonly [string, Kind, boolean]>, amounts: Set<string>) {
  const out: Record<string, unknown> = { id: index + 1 };
  for (const [key] of fields) {
    const value = member[key];
    if (key === 'id' || value === undefined) continue;
    out[key] = amounts.has(key) && typeof value === 'number' ? String(value) : value;
  }
  return out;
}

/** The stored form (as src/scenarios/data.ts toStoredData). */
function toStored(data: Record<string, unknown>, token: string): { stored: Record<string, unknown>; stateId: number } {
  const stateId = (data.state_id ?? data.state) as number;
  const stored: Record<string, unknown> = {
    year: data.year,
    adult: (data.adult as Record<string, unknown>[]).map((a, i) => normaliseMember(a, i, ADULT, ADULT_AMOUNTS)),
    child: ((data.child as Record<string, unknown>[] | undefined) ?? []).map((c, i) => normaliseMember(c, i, CHILD, CHILD_AMOUNTS)),
    state: stateId,
    token,
    programs: data.programs,
  };
  if (data.sub_division !== undefined) stored.sub_division = data.sub_division;
  return { stored, stateId };
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

async function readJson(request: Request): Promise<unknown> {
  const length = request.headers.get('Content-Length');
  if (length !== null && Number(length) > MAX_BODY_BYTES) {
    throw new HttpError(413, 'payload_too_large', 'Payload too large', 'The request body is larger than 256 KiB');
  }
  const type = request.headers.get('Content-Type') ?? '';
  if (!/^application\/([a-z-.]+\+)?json(;|$)/i.test(type)) {
    throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON', 'The request body must be a JSON object sent as Content-Type: application/json');
  }
  // Strict UTF-8, as the service: bytes that are not UTF-8 are refused, not replaced.
  let text: string;
  try {
    text = STRICT_UTF8.decode(await request.arrayBuffer());
  } catch {
    throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON', 'The request body is not valid UTF-8');
  }
  if (text.length > MAX_BODY_BYTES) throw new HttpError(413, 'payload_too_large', 'Payload too large', 'The request body is larger than 256 KiB');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON', 'The request body must be a JSON object sent as Content-Type: application/json');
  }
}

// ---------------------------------------------------------------------------------------------
// Scenario rows and forms

interface ScenarioRow {
  id: number;
  token: string;
  account_id: number;
  state_id: number;
  scenario_data: string;
  version: number;
  created_at: number;
  updated_at: number;
}

// Every statement names its account through the key (hash, now), as the service's do.
const COLUMNS = 'id, token, account_id, state_id, scenario_data, version, created_at, updated_at';
const FIND = `SELECT ${COLUMNS} FROM scenarios WHERE token = ? AND account_id = ${ACCOUNT_OF_KEY}`;
const LIST_FIRST = `SELECT ${COLUMNS} FROM scenarios WHERE account_id = ${ACCOUNT_OF_KEY} ORDER BY id DESC LIMIT ?`;
const LIST_AFTER = `SELECT ${COLUMNS} FROM scenarios WHERE account_id = ${ACCOUNT_OF_KEY} AND id < ? ORDER BY id DESC LIMIT ?`;
const LIST_BEFORE = `SELECT ${COLUMNS} FROM scenarios WHERE account_id = ${ACCOUNT_OF_KEY} AND id > ? ORDER BY id ASC LIMIT ?`;
// Writes are skipped once their event exists (a retry of a committed write), and record it.
const EVENT_RECORDED = 'EXISTS (SELECT 1 FROM events WHERE id = ?)';
const UPDATE =
  'UPDATE scenarios SET scenario_data = ?, state_id = ?, updated_at = ?, version = version + 1, change_id = ? ' +
  `WHERE token = ? AND account_id = ${ACCOUNT_OF_WRITE_KEY} AND NOT ${EVENT_RECORDED}`;
// A create is skipped for an account at its quota (ACCOUNT_MAX_SCENARIOS), and counts the row it wrote.
const MAX_SCENARIOS = 100_000;
const INSERT =
  'INSERT INTO scenarios (token, account_id, state_id, scenario_data, version, change_id, created_at, updated_at) ' +
  `SELECT ?, account_id, ?, ?, 1, ?, ?, ? FROM api_keys WHERE ${LIVE_WRITE} ` +
  `AND NOT EXISTS (SELECT 1 FROM scenarios WHERE token = ?) AND NOT ${EVENT_RECORDED} ` +
  'AND (SELECT scenario_count FROM accounts WHERE id = api_keys.account_id) < ?';
const COUNT_CREATED =
  'UPDATE accounts SET scenario_count = scenario_count + 1 ' +
  `WHERE id = (SELECT account_id FROM scenarios WHERE token = ? AND change_id = ?) AND NOT ${EVENT_RECORDED}`;
const SCENARIO_COUNT = `SELECT scenario_count FROM accounts WHERE id = ${ACCOUNT_OF_WRITE_KEY}`;
const RECORD_EVENT =
  'INSERT INTO events (id, account_id, type, token, version, created_at) SELECT ?, account_id, ?, token, version, ? ' +
  'FROM scenarios WHERE token = ? AND change_id = ? ON CONFLICT (id) DO NOTHING';
const EVENT_BY_ID = `SELECT type, token, version FROM events WHERE id = ? AND account_id = ${ACCOUNT_OF_KEY}`;
// The version a change wrote, as its revision (no patch: its data is the row's; the trigger on
// scenarios turns the one it replaces into a patch), and the pruning of revisions past the newest 100.
const RECORD_REVISION =
  'INSERT INTO scenario_revisions (scenario_id, version, state_id, created_at) ' +
  'SELECT id, version, state_id, updated_at FROM scenarios WHERE token = ? AND change_id = ? ON CONFLICT DO NOTHING';
const PRUNE_REVISIONS =
  `DELETE FROM scenario_revisions WHERE scenario_id = (SELECT id FROM scenarios WHERE token = ? AND account_id = ${ACCOUNT_OF_WRITE_KEY}) ` +
  'AND version <= (SELECT version FROM scenarios WHERE token = ?) - ?';
const REVISIONS_KEPT = 100;

/** After the reply, as the service does: the committed event to the webhook queue. */
function queueEvent(env: BaselineEnv, ctx: ExecutionContext, eventId: string): void {
  ctx.waitUntil(env.WEBHOOK_QUEUE.send({ kind: 'event', eventId }).catch(() => {}));
}

function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll('-', '')}`;
}

function stateOf(id: number): State {
  const state = STATE_BY_ID.get(id);
  if (!state) throw new Error(`unknown state ${id}`);
  return state;
}

function listItem(row: ScenarioRow, retentionDays: number | null, now: number) {
  const state = stateOf(row.state_id);
  let expired: string | null = null;
  if (retentionDays !== null) {
    const expiry = row.updated_at + retentionDays * DAY_MS;
    if (expiry <= now) expired = formatTimestamp(expiry);
  }
  return {
    id: row.id,
    user_id: row.account_id,
    state: { id: state.id, name: state.name, slug: state.slug },
    token: row.token,
    expired,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
    version: row.version,
    scenario_data: JSON.parse(row.scenario_data) as unknown,
  };
}

function detail(
  row: { token: string; state_id: number; created_at: number },
  data: Record<string, unknown> | string,
  chartImg: string,
  message: string,
) {
  const state = stateOf(row.state_id);
  const stored = (typeof data === 'string' ? JSON.parse(data) : data) as Record<string, unknown>;
  return {
    data: {
      status: 'success',
      message,
      scenario: {
        token: row.token,
        scenario_data: { ...stored, token: Number(row.token) },
        chart_img: chartImg,
        created_at: formatTimestamp(row.created_at),
        state: { id: state.id, name: state.name },
      },
    },
  };
}

function retentionDays(setting: string | undefined): number | null {
  if (setting === undefined || setting.trim() === '') return null;
  const days = Number(setting);
  return Number.isFinite(days) && days > 0 ? days : null;
}

// ---------------------------------------------------------------------------------------------
// Routes

async function list(request: Request, url: URL, env: BaselineEnv, ctx: ExecutionContext, key: KeyCheck, onCaller: (id: number) => void): Promise<Response> {
  const errors: Errors = [];
  let limit = 10;
  let after: number | undefined;
  let before: number | undefined;
  for (const [key, value] of url.searchParams) {
    if (key === 'limit') {
      if (!LIMIT.test(value) || Number(value) < 1 || Number(value) > 100) errors.push({ path: key, message: 'must be an integer from 1 to 100' });
      else limit = Number(value);
    } else if (key === 'starting_after' || key === 'endding_before' || key === 'ending_before') {
      if (!CURSOR.test(value)) {
        errors.push({ path: key, message: 'must be a positive integer (a list item id)' });
      } else if (key === 'starting_after') {
        after = Number(value);
      } else {
        if (before !== undefined && before !== Number(value)) errors.push({ path: 'ending_before', message: 'conflicts with endding_before' });
        before = Number(value);
      }
    } else {
      errors.push({ path: key, message: 'is not a known field' });
    }
  }
  if (after !== undefined && before !== undefined) errors.push({ path: 'starting_after', message: 'cannot be combined with endding_before' });
  if (errors.length > 0) {
    throw new HttpError(400, 'invalid_query', 'Invalid query parameter', `The query string has ${errors.length} problem(s); see errors`, {}, errors);
  }
  const statement =
    before !== undefined
      ? env.DB.prepare(LIST_BEFORE).bind(...keyParams(key), before, limit + 1)
      : after !== undefined
        ? env.DB.prepare(LIST_AFTER).bind(...keyParams(key), after, limit + 1)
        : env.DB.prepare(LIST_FIRST).bind(...keyParams(key), limit + 1);
  const batch = await withKey(env, key, [statement]);
  onCaller((await judge(request, env, ctx, key, batch.keyRow, false, batch.throttled)).accountId);
  const results = (batch.results[0] ?? []) as unknown as ScenarioRow[];
  const hasMore = results.length > limit;
  if (hasMore) results.pop();
  if (before !== undefined) results.reverse();
  const retention = retentionDays(env.SCENARIO_RETENTION_DAYS);
  return json({ data: results.map((row) => listItem(row, retention, key.now)), has_more: hasMore }, 200);
}

async function view(request: Request, url: URL, env: BaselineEnv, ctx: ExecutionContext, key: KeyCheck, onCaller: (id: number) => void, token: string): Promise<Response> {
  const batch = await withKey(env, key, [env.DB.prepare(FIND).bind(token, ...keyParams(key))]);
  const caller = await judge(request, env, ctx, key, batch.keyRow, false, batch.throttled);
  onCaller(caller.accountId);
  const row = batch.results[0]?.[0] as ScenarioRow | undefined;
  if (!row) throw notFound();
  const etag = etagFor(row.version);
  if (noneMatchHits(request.headers.get('If-None-Match'), etag)) return new Response(null, { status: 304, headers: { ETag: etag } });
  const chart = await signChartUrl(env, url.origin, caller.accountId, token, key.now);
  return json(detail(row, row.scenario_data, chart, 'Scenario found'), 200, { ETag: etag });
}

async function save(request: Request, url: URL, env: BaselineEnv, ctx: ExecutionContext, key: KeyCheck, onCaller: (id: number) => void): Promise<Response> {
  const { data, token } = validateBody(await readJson(request), true);
  if (token === undefined) throw new Error('validated save without a token');
  const ifMatch = request.headers.get('If-Match');
  const condition = ifMatch === null ? undefined : parseIfMatch(ifMatch);
  const { stored, stateId } = toStored(data, token);
  const now = key.now;
  const eventId = newEventId();
  const versions = condition && !condition.any ? condition.versions : undefined;
  let sql = UPDATE;
  const params: unknown[] = [JSON.stringify(stored), stateId, now, eventId, token, ...keyParams(key), eventId];
  if (versions) {
    sql += ' AND version IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(versions));
  }
  const batch = await withKey(env, key, [
    env.DB.prepare(sql).bind(...params),
    env.DB.prepare(RECORD_EVENT).bind(eventId, 'scenario.saved', now, token, eventId),
    env.DB.prepare(RECORD_REVISION).bind(token, eventId),
    env.DB.prepare(PRUNE_REVISIONS).bind(token, ...keyParams(key), token, REVISIONS_KEPT),
    env.DB.prepare(FIND).bind(token, ...keyParams(key)),
    env.DB.prepare(EVENT_BY_ID).bind(eventId, ...keyParams(key)),
  ]);
  const caller = await judge(request, env, ctx, key, batch.keyRow, true, batch.throttled);
  onCaller(caller.accountId);
  const row = batch.results[4]?.[0] as ScenarioRow | undefined;
  if (!row) throw notFound();
  const event = batch.results[5]?.[0] as { version: number } | undefined;
  if (!event) {
    throw new HttpError(412, 'precondition_failed', 'Precondition failed', 'The scenario has changed since that ETag', { ETag: etagFor(row.version) });
  }
  queueEvent(env, ctx, eventId);
  const chart = await signChartUrl(env, url.origin, caller.accountId, token, now);
  return json(detail(row, stored, chart, 'Scenario saved'), 200, { ETag: etagFor(event.version) });
}

async function create(request: Request, url: URL, env: BaselineEnv, ctx: ExecutionContext, key: KeyCheck, onCaller: (id: number) => void): Promise<Response> {
  const { data } = validateBody(await readJson(request), false);
  const idempotencyKey = request.headers.get('Idempotency-Key');
  if (idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) {
    throw new HttpError(400, 'invalid_header', 'Invalid request header', 'A request header has 1 problem; see errors');
  }
  // (Idempotency-Key replays are not part of the benchmark; the service's path without one is mirrored.)
  const now = key.now;
  const eventId = newEventId();
  for (let attempt = 0; ; attempt++) {
    const token = generateToken();
    const { stored, stateId } = toStored(data, token);
    const batch = await withKey(env, key, [
      env.DB.prepare(INSERT).bind(token, stateId, JSON.stringify(stored), eventId, now, now, ...keyParams(key), token, eventId, MAX_SCENARIOS),
      env.DB.prepare(COUNT_CREATED).bind(token, eventId, eventId),
      env.DB.prepare(RECORD_EVENT).bind(eventId, 'scenario.created', now, token, eventId),
      env.DB.prepare(RECORD_REVISION).bind(token, eventId),
      env.DB.prepare(EVENT_BY_ID).bind(eventId, ...keyParams(key)),
      env.DB.prepare(SCENARIO_COUNT).bind(...keyParams(key)),
    ]);
    const caller = await judge(request, env, ctx, key, batch.keyRow, true, batch.throttled);
    onCaller(caller.accountId);
    if (batch.results[4]?.[0]) {
      queueEvent(env, ctx, eventId);
      const body = detail({ token, state_id: stateId, created_at: now }, stored, await signChartUrl(env, url.origin, caller.accountId, token, now), 'Scenario created');
      return json(body, 201, { Location: `${url.origin}/scenarios/${token}`, ETag: etagFor(1) });
    }
    const held = (batch.results[5]?.[0] as { scenario_count?: number } | undefined)?.scenario_count;
    if (held !== undefined && held >= MAX_SCENARIOS) {
      throw new HttpError(409, 'quota_exceeded', 'Scenario quota reached', `This account holds ${held} scenarios, its quota of ${MAX_SCENARIOS}; delete some before creating more`);
    }
    if (attempt >= 3) throw new Error('could not draw a free scenario token');
  }
}

async function route(
  request: Request,
  url: URL,
  env: BaselineEnv,
  ctx: ExecutionContext,
  onCaller: (accountId: number) => void,
): Promise<Response> {
  const path = url.pathname;
  const method = request.method;
  if (path === '/me' && method === 'GET') {
    const key = await presentedKey(request, env);
    const batch = await withKey(env, key, []);
    const caller = await judge(request, env, ctx, key, batch.keyRow, false, batch.throttled);
    onCaller(caller.accountId);
    return json({ name: caller.name, email: caller.email }, 200);
  }
  if (path === '/scenarios' || path === '/scenarios/') {
    if (method === 'GET') return list(request, url, env, ctx, await presentedKey(request, env), onCaller);
    if (method === 'POST') return create(request, url, env, ctx, await presentedKey(request, env), onCaller);
  } else if (path === '/scenarios/save') {
    if (method === 'POST' || method === 'PUT') return save(request, url, env, ctx, await presentedKey(request, env), onCaller);
    throw new HttpError(405, 'method_not_allowed', 'Method not allowed', `${method} is not allowed here; use POST, PUT`, { Allow: 'POST, PUT' });
  } else if (path.startsWith('/scenarios/') && method === 'GET') {
    const token = path.slice('/scenarios/'.length);
    if (!TOKEN_PATTERN.test(token)) throw notFound();
    return view(request, url, env, ctx, await presentedKey(request, env), onCaller, token);
  }
  throw new HttpError(404, 'not_found', 'Not found', `No route for ${method} ${path}`);
}

export default {
  async fetch(request, env, ctx): Promise<Response> {
    const ray = request.headers.get('cf-ray');
    const requestId = ray !== null && RAY_ID.test(ray) ? ray : crypto.randomUUID();
    const url = new URL(request.url);
    // D1 Sessions, as the service: reads may use a replica no older than the client's bookmark.
    const bookmark = request.headers.get('X-D1-Bookmark');
    const session = env.DB.withSession(bookmark !== null && BOOKMARK_PATTERN.test(bookmark) ? bookmark : 'first-unconstrained');
    const scoped: BaselineEnv = { ...env, DB: session as unknown as D1Database };
    let response: Response;
    let accountId: number | undefined;
    try {
      response = await route(request, url, scoped, ctx, (id) => (accountId = id));
      // Authenticated routes carry the per-key policy (as the service's middleware adds after next()).
      response.headers.set('RateLimit-Policy', keyPolicy(env));
    } catch (error) {
      if (error instanceof HttpError) {
        response = problem(error, requestId);
      } else {
        console.error(JSON.stringify({ level: 'error', msg: 'unhandled error', request_id: requestId, error: (error as Error).name }));
        response = problem(new HttpError(500, 'internal_error', 'Internal server error', 'Something went wrong on our side'), requestId);
      }
    }
    const headers = response.headers;
    headers.set('Access-Control-Allow-Origin', '*');
    headers.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
    headers.set('X-Request-Id', requestId);
    const reached = session.getBookmark();
    if (reached) headers.set('X-D1-Bookmark', reached);
    if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
    // Refused requests are logged as the service logs them.
    if (response.status >= 400) {
      console.log(JSON.stringify({ level: 'info', msg: 'request failed', request_id: requestId, method: request.method, path: url.pathname, status: response.status, account_id: accountId }));
    }
    return response;
  },
} satisfies ExportedHandler<BaselineEnv>;
