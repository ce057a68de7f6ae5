// The simulator floor of `npm run bench`: only the binding calls the baseline makes per request
// (the key lookup, the rate limiter, the scenario statement, the last_used_at touch, through a D1
// session as both Workers use), with none of
// the Worker's own work (no hashing, parsing, validation, signing or response bodies).
//
// Locally, D1 and the rate limiter are simulated inside the same workerd process, and they cost
// far more CPU there (~0.6 ms per D1 statement, ~0.5 ms per limit() call) than the Worker's own
// code. In production neither runs on the Worker's CPU. Subtracting this floor from ours and the
// baseline estimates the CPU each Worker spends itself — the part a framework can add to.

interface FloorEnv {
  DB: D1Database;
  KEY_RATE_LIMITER: RateLimit;
}

const KEY_QUERY =
  'SELECT k.id, k.scope, k.expires_at, k.revoked_at, k.last_used_at, a.id AS account_id, a.name AS account_name, ' +
  'a.email AS account_email FROM api_keys k INNER JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?';
const TOUCH_KEY = 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)';
const COLUMNS = 'id, token, account_id, state_id, scenario_data, version, created_at, updated_at';
const FIND = `SELECT ${COLUMNS} FROM scenarios WHERE token = ? AND account_id = ?`;
const LIST_FIRST = `SELECT ${COLUMNS} FROM scenarios WHERE account_id = ? ORDER BY id DESC LIMIT ?`;
const LIST_AFTER = `SELECT ${COLUMNS} FROM scenarios WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;
const UPDATE =
  `UPDATE scenarios SET scenario_data = ?, state_id = ?, updated_at = ?, version = version + 1 WHERE token = ? AND account_id = ? RETURNING ${COLUMNS}`;
const INSERT =
  `INSERT INTO scenarios (token, account_id, state_id, scenario_data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`;

interface KeyRow {
  id: number;
  last_used_at: number | null;
  account_id: number;
}

// Per-isolate caches: the floor must not pay for hashing or parsing on each request.
const hashes = new Map<string, Promise<string>>();
const bodies = new Map<string, { token: string; stored: string }>();

async function hashOf(header: string): Promise<string> {
  let hash = hashes.get(header);
  if (!hash) {
    hash = crypto.subtle.digest('SHA-256', new TextEncoder().encode(header.slice('Bearer '.length))).then((d) => {
      let hex = '';
      for (const b of new Uint8Array(d)) hex += b.toString(16).padStart(2, '0');
      return hex;
    });
    hashes.set(header, hash);
  }
  return hash;
}

/** The body's token and a stored-size scenario_data text, parsed once per distinct body. */
function bodyOf(text: string): { token: string; stored: string } {
  let body = bodies.get(text);
  if (!body) {
    const parsed = JSON.parse(text) as { token?: string | number; scenarioData?: unknown };
    body = { token: String(parsed.token ?? ''), stored: JSON.stringify(parsed.scenarioData) };
    bodies.set(text, body);
  }
  return body;
}

export default {
  async fetch(request, env, ctx): Promise<Response> {
    const url = new URL(request.url);
    const db = env.DB.withSession('first-unconstrained');
    const key = await db.prepare(KEY_QUERY)
      .bind(await hashOf(request.headers.get('Authorization') ?? ''))
      .first<KeyRow>();
    if (!key) return new Response('no key', { status: 401 });
    await env.KEY_RATE_LIMITER.limit({ key: String(key.id) });
    const now = Date.now();
    if (key.last_used_at === null || key.last_used_at < now - 60_000) {
      ctx.waitUntil(db.prepare(TOUCH_KEY).bind(now, key.id, now - 60_000).run());
    }
    const path = url.pathname;
    if (path === '/me') return new Response('ok');
    if (path === '/scenarios' && request.method === 'GET') {
      const after = url.searchParams.get('starting_after');
      const statement =
        after === null
          ? db.prepare(LIST_FIRST).bind(key.account_id, 11)
          : db.prepare(LIST_AFTER).bind(key.account_id, Number(after), 11);
      await statement.all();
      return new Response('ok');
    }
    if (path === '/scenarios/save') {
      const body = bodyOf(await request.text());
      const row = await db.prepare(UPDATE).bind(body.stored, 36, now, body.token, key.account_id).first();
      return new Response(row ? 'ok' : 'missing', { status: row ? 200 : 404 });
    }
    if (path === '/scenarios' && request.method === 'POST') {
      const body = bodyOf(await request.text());
      const token = String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999));
      await db.prepare(INSERT).bind(token, key.account_id, 36, body.stored, now, now).first();
      return new Response('ok', { status: 201 });
    }
    const token = path.slice('/scenarios/'.length);
    const row = await db.prepare(FIND).bind(token, key.account_id).first();
    return new Response(row ? 'ok' : 'missing', { status: row ? 200 : 404 });
  },
} satisfies ExportedHandler<FloorEnv>;
