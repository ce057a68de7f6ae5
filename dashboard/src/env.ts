// The dashboard Worker's bindings (dashboard/wrangler.toml), written out here rather than generated:
// `wrangler types` writes one Env per project, and worker-configuration.d.ts is the API's. The vars
// both Workers read go through the API's `readConfig` (src/env.ts), so each has one default.
import { readConfig as readApiConfig, type Config } from '../../src/env.ts';

export interface DashboardBindings {
  DB: D1Database;
  WEBHOOK_QUEUE: Queue;
  EMAIL: SendEmail;
  SIGNIN_ADDRESS_LIMITER: RateLimit;
  SIGNIN_EMAIL_LIMITER: RateLimit;
  DASHBOARD_SIGNUP?: string;
  EMAIL_FROM?: string;
  ACCOUNT_MAX_SCENARIOS?: string;
  DATABASE_MAX_BYTES?: string;
  WEBHOOK_ALLOW_LOOPBACK?: string;
  PUBLIC_ORIGIN?: string;
  DEFAULT_API_VERSION?: string;
  /** The API's secret (src/env.ts Secrets): endpoints made or rotated here are sealed with it too. */
  WEBHOOK_SECRET_KEYS?: string;
}

/** The configuration, read from the vars with their defaults (one place). */
export interface DashboardConfig extends Pick<Config, 'webhookAllowLoopback' | 'accountMaxScenarios' | 'databaseMaxBytes' | 'publicOrigin' | 'defaultApiVersion'> {
  /** DASHBOARD_SIGNUP: "open" creates an account at a new address's first sign-in; anything else is "invite". */
  openSignup: boolean;
  /** EMAIL_FROM: the sender of sign-in e-mails. */
  emailFrom: string;
}

export function readConfig(env: DashboardBindings): DashboardConfig {
  const { webhookAllowLoopback, accountMaxScenarios, databaseMaxBytes, publicOrigin, defaultApiVersion } = readApiConfig(env as Partial<Record<keyof Env, unknown>>);
  return {
    openSignup: env.DASHBOARD_SIGNUP === 'open',
    emailFrom: env.EMAIL_FROM || 'dashboard@scenario-service.example',
    webhookAllowLoopback,
    accountMaxScenarios,
    databaseMaxBytes,
    publicOrigin,
    defaultApiVersion,
  };
}

/** Who did it, for the audit log. */
export interface Client {
  address: string | null;
  userAgent: string | null;
}

export interface DashboardEnv {
  Bindings: DashboardBindings;
  Variables: {
    config: DashboardConfig;
    client: Client;
    /** The session cookie's value, when the request carries one. */
    sessionId: string | null;
    /** The database of the session's account, when it was moved from the one the session names (moved.ts). */
    sessionDatabase: number | null;
  };
}
