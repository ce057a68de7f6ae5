// The app's context type: the Worker's bindings (generated into worker-configuration.d.ts by
// `wrangler types`) plus the secrets, and what middleware puts on the context for handlers.
import type { Caller } from './auth/key-check.ts';
import type { KeyCheck } from './db/api-keys.ts';
import type { Session } from './db/statement.ts';

export interface Secrets {
  /** Bearer token of the admin API (the account dashboard). Unset: the admin API refuses everyone. */
  ADMIN_TOKEN?: string;
  /**
   * HMAC key of chart_img URLs; shares nothing with ADMIN_TOKEN. Unset (or equal to ADMIN_TOKEN): the
   * replies that carry chart_img (view, create, save) and the chart itself are a 500 naming it.
   */
  CHART_SIGNING_KEY?: string;
}

export type Bindings = Env & Secrets;

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    /** The request's D1 session (read-your-writes bookmarks); every query takes it as an argument. */
    db: Session;
    /** The presented API key's hash, checked by the request's own statements. */
    key: KeyCheck;
    /** The key's account, once D1 accepted the key (set by the route; read by logs, last_used_at). */
    caller: Caller;
  };
}
