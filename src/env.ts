// The app's context type: the Worker's bindings (generated into worker-configuration.d.ts by
// `wrangler types`) plus the secrets, and what middleware puts on the context for handlers.
import type { Db } from './db/client.ts';

export interface Secrets {
  /** Bearer token of the admin API (the account dashboard). Unset: the admin API refuses everyone. */
  ADMIN_TOKEN?: string;
  /** HMAC key for chart_img URLs. Unset: derived from ADMIN_TOKEN. */
  CHART_SIGNING_KEY?: string;
}

export type Bindings = Env & Secrets;

/** The caller, as resolved from a valid API key by the bearer middleware. */
export interface Caller {
  accountId: number;
  keyId: number;
  scope: 'read' | 'read_write';
  name: string;
  email: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    db: Db;
    caller: Caller;
  };
}
