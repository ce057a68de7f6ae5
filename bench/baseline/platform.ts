// The platform Worker of `npm run bench:startup`'s first real request: a trivial Worker that makes
// the platform calls an authenticated request of the service makes — read the body, a SHA-256
// digest of the key, the per-key rate limiter, one D1 batch in a session (the key's row, and for a
// create an insert) — and none of the service's own work. Local D1's and the limiter's own
// first-call costs are then in both Workers' first requests and cancel.

interface PlatformEnv {
  DB: D1Database;
  KEY_RATE_LIMITER: RateLimit;
}

const KEY_QUERY =
  'SELECT k.id, k.scope, k.expires_at, k.revoked_at, k.last_used_at, a.id AS account_id, a.name AS account_name, ' +
  'a.email AS account_email FROM api_keys k INNER JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?';
const INSERT =
  'INSERT INTO scenarios (token, account_id, state_id, scenario_data, created_at, updated_at) ' +
  'SELECT ?, a.id, 36, ?, ?, ? FROM api_keys k INNER JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ? RETURNING id, token';

export default {
  async fetch(request, env): Promise<Response> {
    const create = request.method === 'POST';
    const body = create ? (JSON.parse(await request.text()) as { scenarioData?: unknown }) : null;
    const key = (request.headers.get('Authorization') ?? '').slice('Bearer '.length);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
    let hash = '';
    for (const byte of digest) hash += byte.toString(16).padStart(2, '0');
    await env.KEY_RATE_LIMITER.limit({ key: hash });
    const db = env.DB.withSession('first-unconstrained');
    const now = Date.now();
    const token = String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999));
    const statements = [db.prepare(KEY_QUERY).bind(hash)];
    if (body) statements.push(db.prepare(INSERT).bind(token, JSON.stringify(body.scenarioData), now, now, hash));
    const results = await db.batch(statements);
    const row = results.at(-1)?.results[0];
    if (!row) return new Response('{"code":"unauthorized"}', { status: 401, headers: { 'Content-Type': 'application/problem+json' } });
    return new Response(JSON.stringify({ data: row }), { status: create ? 201 : 200, headers: { 'Content-Type': 'application/json' } });
  },
} satisfies ExportedHandler<PlatformEnv>;
