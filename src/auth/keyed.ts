// The one keyed path of an API-key request. The route's middleware (auth/bearer.ts `apiKey`) reads
// the key and hands the workflow a `Keyed`; the workflow sends its statements through `run`, by
// name, and gets their rows back under the same names. The client address's throttle and the
// key's row head the batch (one round trip) and the key is judged by the rule of db/api-keys.ts:
// accepted, the caller is kept on the Keyed (logs, last_used_at); refused, a KeyRefusedError rises
// like any other error, to the app's one error handler, which renders it. Nothing here calls back.
import { keyHead, keyRefusal, movedToOf, toKeyState, type Caller, type KeyAccess, type KeyCheck, type Keyed, type KeyRefusal } from '../db/api-keys.ts';
import { runMeasuredBatch, type Batch, type BatchRows } from '../db/execute.ts';
import { ownSize, type Room, type SizeSeen } from '../db/sizes.ts';
import type { Session } from '../db/statement.ts';
import { DEFAULT_CONFIG } from '../env.ts';
import { ApiError } from '../http/problem.ts';
import { FAILED_AUTH_POLICY, throttledHeaders } from './rate-limit-headers.ts';

export type { Caller, Keyed };

/** Seconds a write refused during a move's write pause is told to wait (Retry-After). */
export const MOVE_RETRY_AFTER_SECONDS = 2;

const FAILING: Record<Exclude<KeyRefusal, 'read_only' | 'throttled' | 'paused'>, string> = {
  unknown: 'The API key is not valid',
  revoked: 'The API key has been revoked',
  expired: 'The API key has expired',
};

/** A failing credential's 401: every one alike, so a guesser learns nothing of which it was. */
export function unauthorized(detail: string): ApiError {
  return new ApiError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service", error="invalid_token"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
  });
}

/**
 * A key D1 refused, as its problem: 401 for a failing credential (which the middleware counts
 * against the address), 403 for a read-only key on a write, 429 from a throttled address.
 */
export class KeyRefusedError extends ApiError {
  readonly reason: KeyRefusal;

  constructor(reason: KeyRefusal) {
    const problem =
      reason === 'paused'
        ? new ApiError('unavailable', 'This account is being moved to another database; writes resume in a moment', {
            headers: { 'Retry-After': String(MOVE_RETRY_AFTER_SECONDS) },
          })
        : reason === 'throttled'
        ? new ApiError('rate_limited', 'Too many failed authentication attempts; wait a minute', { headers: throttledHeaders() })
        : reason === 'read_only'
          ? new ApiError('forbidden', 'This API key is read-only; this operation needs a read_write key')
          : unauthorized(FAILING[reason]);
    super(problem.code, problem.message, { headers: problem.headers });
    this.reason = reason;
  }

  /** Whether the refusal counts as a failed authentication against the client's address. */
  get failing(): boolean {
    return this.reason !== 'read_only' && this.reason !== 'throttled' && this.reason !== 'paused';
  }
}

/**
 * The session on database `database` where a key's account was moved (and the request's record of
 * it), or null when no such database is bound.
 */
export type Forward = (database: number) => Session | null;

/**
 * The keyed runner of one request: `access` is the route's (`read` or `write`); `room`, the
 * request's database and its DATABASE_MAX_BYTES, which the guarded writes bind (src/db/sizes.ts).
 * A write's batch also reads its database's recorded size, and keeps it with D1's size after the
 * batch (`size`), for the middleware to record once the reply is out. A key of an account moved to
 * another database finds its forwarding in the batch instead of its row (`#key`): the same
 * statements then run there (`forward`), one more round trip until the key is rolled. (They were
 * bound for the database the key names: their room guard reads that database's recorded size.)
 */
export function keyed(
  session: Session,
  key: KeyCheck,
  access: KeyAccess,
  room: Room = { database: 0, maxBytes: DEFAULT_CONFIG.databaseMaxBytes },
  forward?: Forward,
): Keyed {
  let caller: Caller | null = null;
  let size: SizeSeen | null = null;
  let on = session;
  const values = { ...key, ...room };
  const runOn = (target: Session, database: number, statements: Batch) => {
    const head: Batch = { '#throttle': keyHead.throttle(target, key), '#key': keyHead.key(target, key) };
    if (access === 'write') head['#size'] = ownSize(target, { ...room, database });
    return runMeasuredBatch(target, { ...head, ...statements });
  };
  return {
    get session() {
      return on;
    },
    key: values,
    get caller() {
      return caller;
    },
    get size() {
      return size;
    },
    async run(statements) {
      let measured = await runOn(on, room.database, statements);
      const movedTo = movedToOf(measured.rows['#key'] ?? []);
      const there = movedTo === undefined ? null : (forward?.(movedTo) ?? null);
      if (there) {
        on = there;
        measured = await runOn(on, movedTo!, statements);
      }
      const { '#throttle': throttle = [], '#key': keyRow = [], '#size': recorded, ...rows } = measured.rows;
      const state = toKeyState(throttle, keyRow);
      const refusal = keyRefusal(state, access, key.now);
      if (refusal !== null || !state.key) throw new KeyRefusedError(refusal ?? 'unknown');
      caller = state.key;
      if (recorded) size = { recorded: (recorded[0]?.bytes as number | undefined) || null, after: measured.sizeAfter };
      return { caller, rows: rows as BatchRows<typeof statements> };
    },
  };
}
