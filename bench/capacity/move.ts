// The move's part of `npm run bench:capacity`: an account with BENCH_MOVE_SCENARIOS (1,000) scenarios,
// each saved twice, is moved from DB to DB_3 through the admin API (POST /admin/accounts/{id}/move,
// called until done, BENCH_MOVE_STATEMENTS (100) statements a call) while a client saves its
// scenarios in a closed loop (local workerd serves the client between the admin calls). Measured: the move's duration, its round trips and calls, the write pause the service
// reports (first refused write to first accepted one) and the longest gap the client saw between two
// accepted writes. Local D1 (no simulated service time): production's duration is about the round
// trips times its D1 round trip, which the bench prints for a few round-trip times.
import { applyMigrations } from '../lib/migrations.ts';
import { BINDINGS, databaseBindings, startServer } from '../lib/server.ts';

export interface MoveFigures {
  scenarios: number;
  seconds: number;
  calls: number;
  roundTrips: number;
  pauseMs: number;
  pauseRoundTrips: number;
  longestGapMs: number;
  refusedWrites: number;
  acceptedWrites: number;
  rows: Record<string, number>;
}

type Call = (base: string, bearer: string, method: string, path: string, body: unknown) => Promise<{ status: number; headers: Headers; json: any }>;

export async function measureMove(options: {
  modules: string[];
  stateDir: string;
  scenarios: number;
  /** The admin API's max_statements a call. */
  statementsPerCall: number;
  /** The admin API's Worker (bundle.ts `bundleAdmin`), served behind the service's ADMIN binding. */
  admin: string;
  household: () => unknown;
  call: Call;
}): Promise<MoveFigures> {
  const { call } = options;
  const [scriptPath, ...rest] = options.modules;
  const server = await startServer({ scriptPath: scriptPath!, modules: rest, stateDir: options.stateDir, databases: 3, bindings: { BENCH_D1_STATEMENT_MS: '0' }, admin: options.admin });
  try {
    for (const name of databaseBindings(3)) await applyMigrations(await server.mf.getD1Database(name));
    const admin = (method: string, path: string, body?: unknown) => call(server.url, BINDINGS.ADMIN_TOKEN, method, path, body);
    const account = await admin('POST', '/admin/accounts', { name: 'Moved', email: 'moved@example.com' });
    if (account.status !== 201) throw new Error(`create account: ${account.status}`);
    const id = account.json.id as number;
    const key = (await admin('POST', `/admin/accounts/${id}/keys`, { name: 'move' })).json.key as string;
    const tokens: string[] = [];
    for (let i = 0; i < options.scenarios; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, options.scenarios - i) }, async () => {
          const created = await call(server.url, key, 'POST', '/scenarios', { scenarioData: options.household() });
          if (created.status !== 201) throw new Error(`create: ${created.status}`);
          const token = /\/scenarios\/([^/]+)$/.exec(created.headers.get('location') ?? '')![1]!;
          await call(server.url, key, 'POST', '/scenarios/save', { token, scenarioData: options.household() });
          return token;
        }),
      );
      tokens.push(...batch);
    }

    let moving = true;
    let last = performance.now();
    let longestGapMs = 0;
    let refusedWrites = 0;
    let acceptedWrites = 0;
    const client = async () => {
      for (let i = 0; moving; i++) {
        const reply = await call(server.url, key, 'POST', '/scenarios/save', { token: tokens[i % tokens.length], scenarioData: options.household() });
        if (reply.status === 503) refusedWrites += 1;
        else if (reply.status === 200) {
          acceptedWrites += 1;
          const now = performance.now();
          longestGapMs = Math.max(longestGapMs, now - last);
          last = now;
        } else throw new Error(`save during the move: ${reply.status} ${JSON.stringify(reply.json)}`);
      }
    };
    const started = performance.now();
    const mover = async () => {
      try {
        for (let calls = 1; ; calls++) {
          const reply = await admin('POST', `/admin/accounts/${id}/move`, { to: 'DB_3', max_statements: options.statementsPerCall });
          if (reply.status !== 200) throw new Error(`move: ${reply.status} ${JSON.stringify(reply.json)}`);
          if (reply.json.done) return { calls, report: reply.json };
        }
      } finally {
        moving = false;
      }
    };
    last = performance.now();
    const [{ calls, report }] = await Promise.all([mover(), client()]);
    const seconds = (performance.now() - started) / 1000;
    return {
      scenarios: options.scenarios,
      seconds,
      calls,
      roundTrips: report.round_trips,
      pauseMs: report.pause_ms,
      pauseRoundTrips: report.pause_round_trips,
      longestGapMs,
      refusedWrites,
      acceptedWrites,
      rows: Object.fromEntries((report.rows as Array<{ table: string; rows: number }>).map((r) => [r.table, r.rows])),
    };
  } finally {
    await server.dispose();
  }
}
