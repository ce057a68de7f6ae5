// The one keyed path of an API-key request. The route's middleware (auth/bearer.ts `apiKey`) reads
// the key and hands the workflow a `Keyed`; the workflow sends its statements through `run`, by
// name, and gets their rows back under the same names. The client address's throttle and the
// key's row head the batch (one round trip), the key is judged by the rule of db/api-keys.ts, and
// then either the caller is recorded (for last_used_at and the logs) or the refusal is raised.
// Nothing here knows HTTP: what "recorded" and "raised" mean is the middleware's business.
import { keyHead, keyRefusal, toKeyState, type KeyAccess, type KeyCheck, type KeyRefusal, type KeyWithAccount } from '../db/api-keys.ts';
import { runBatch, type Batch, type BatchRows } from '../db/execute.ts';
import type { Session } from '../db/statement.ts';

/** The caller once its key is accepted: the key and the account it belongs to. */
export type Caller = KeyWithAccount;

/** A refused key, for callers without a middleware to turn it into a problem (tests, scripts). */
export class KeyRefusedError extends Error {
  readonly reason: KeyRefusal;

  constructor(reason: KeyRefusal) {
    super(`API key refused: ${reason}`);
    this.reason = reason;
    this.name = 'KeyRefusedError';
  }
}

/** Names the head of the batch takes; a workflow's statements may not use them. */
type Reserved = { '#throttle'?: never; '#key'?: never };

/** What a workflow gets: the request's session and key, and the only way to run statements under the key. */
export interface Keyed {
  readonly session: Session;
  readonly key: KeyCheck;
  /** Runs `statements` as one batch after the key's head; the caller and each statement's rows, by name. */
  run<B extends Batch & Reserved>(statements: B): Promise<{ caller: Caller; rows: BatchRows<B> }>;
}

export interface KeyedHooks {
  /** The key was accepted. */
  accepted?(caller: Caller): void;
  /** The key was refused: the error to throw (the middleware counts the failure and makes the problem). */
  refused?(reason: KeyRefusal): Promise<Error>;
}

/** The keyed runner of one request: `access` is the route's (`read` or `write`). */
export function keyed(session: Session, key: KeyCheck, access: KeyAccess, hooks: KeyedHooks = {}): Keyed {
  return {
    session,
    key,
    async run(statements) {
      const batch: Batch = { '#throttle': keyHead.throttle(session, key), '#key': keyHead.key(session, key), ...statements };
      const { '#throttle': throttle = [], '#key': keyRow = [], ...rows } = await runBatch(session, batch);
      const state = toKeyState(throttle, keyRow);
      const refusal = keyRefusal(state, access, key.now);
      if (refusal !== null || !state.key) {
        throw hooks.refused ? await hooks.refused(refusal ?? 'unknown') : new KeyRefusedError(refusal ?? 'unknown');
      }
      hooks.accepted?.(state.key);
      return { caller: state.key, rows: rows as BatchRows<typeof statements> };
    },
  };
}
