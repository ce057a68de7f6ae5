// The Developers section's statements (dashboard/src/). Like the API's statements name their
// account through the request's key, these name it through the request's session
// (`accountOfSession`): a page's statements and its session check travel in one batch, and none
// of them reads or changes anything for a session that is unknown, signed out or expired. Keys and
// webhook endpoints are changed with the API's own statements (`insertKeyFrom`, `rollStatements`,
// `endpointStatements`), given the session as their owner.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { insertKeyFrom, rollStatements } from '../../../src/db/api-keys.ts';
import { endpointStatements } from '../../../src/db/webhooks.ts';
import { dashboardAudit, dashboardSessions, dashboardSignInLinks } from './schema.ts';
import { accounts, apiKeys, events, webhookEndpoints } from '../../../src/db/schema.ts';
import { statement } from '../../../src/db/statement.ts';

const p = sql.placeholder;

/** What every session-guarded statement binds: the session id's hash, and the time it is judged at. */
export interface SessionCheck {
  sid: string;
  now: number;
}

/** The WHERE condition on dashboard_sessions of a live session with that hash. */
const liveSession = () =>
  sql`${dashboardSessions.idHash} = ${p('sid')} and ${dashboardSessions.idleExpiresAt} > ${p('now')} and ${dashboardSessions.expiresAt} > ${p('now')}`;

/** The account of a live session, as a scalar sub-select: NULL (matching no row) otherwise. */
const accountOfSession = () => sql`(select ${dashboardSessions.accountId} from ${dashboardSessions} where ${liveSession()})`;

// Sessions.

/** Idle expiry moves forward at most once a minute, so a page view rarely writes. */
export const TOUCH_GRANULARITY_MS = 60_000;

/** `idleUntil`: the idle expiry from now; `staleBefore`: written only if the stored one is older than this (idleUntil − TOUCH_GRANULARITY_MS). */
export const touchSession = statement<SessionCheck & { idleUntil: number; staleBefore: number }>(
  () => sql`update ${dashboardSessions} set ${sql.identifier(dashboardSessions.idleExpiresAt.name)} = min(${p('idleUntil')}, ${dashboardSessions.expiresAt})
    where ${liveSession()} and ${dashboardSessions.idleExpiresAt} < ${p('staleBefore')}`,
);

/** The session's row with its account (no row: not signed in). */
export const sessionAccount = statement<SessionCheck>(
  () => sql`select ${accounts.id} as account_id, ${accounts.name} as name, ${accounts.email} as email, ${accounts.createdAt} as account_created_at,
    ${dashboardSessions.createdAt} as signed_in_at, ${dashboardSessions.expiresAt} as expires_at
    from ${dashboardSessions} inner join ${accounts} on ${accounts.id} = ${dashboardSessions.accountId} where ${liveSession()}`,
);

export const deleteSession = statement<SessionCheck>(() => sql`delete from ${dashboardSessions} where ${dashboardSessions.idHash} = ${p('sid')}`);

/** Sign out everywhere: every session of the account, this one included. */
export const deleteAccountSessions = statement<SessionCheck>(
  () => sql`delete from ${dashboardSessions} where ${dashboardSessions.accountId} = ${accountOfSession()}`,
);

export const countSessions = statement<SessionCheck>(
  () => sql`select count(*) as n from ${dashboardSessions} where ${dashboardSessions.accountId} = ${accountOfSession()}
    and ${dashboardSessions.idleExpiresAt} > ${p('now')} and ${dashboardSessions.expiresAt} > ${p('now')}`,
);

// Sign-in links.

export interface LinkRequest {
  tokenHash: string;
  email: string;
  now: number;
  expiresAt: number;
  /** 1 when DASHBOARD_SIGNUP is "open": a link for any address; 0: only for an existing account's. */
  open: number;
  /** Live links an address may hold at once: a bound on the mail one address can be sent. */
  maxLive: number;
}

/** A link, stored when the address may sign in and holds fewer than `maxLive` live links; its row then. */
export const insertSignInLink = statement<LinkRequest>(
  () => sql`insert into ${dashboardSignInLinks} (token_hash, email, created_at, expires_at)
    select ${p('tokenHash')}, ${p('email')}, ${p('now')}, ${p('expiresAt')}
    where (${p('open')} = 1 or exists (select 1 from ${accounts} where lower(${accounts.email}) = lower(${p('email')})))
      and (select count(*) from ${dashboardSignInLinks} where lower(${dashboardSignInLinks.email}) = lower(${p('email')})
        and ${dashboardSignInLinks.expiresAt} > ${p('now')} and ${dashboardSignInLinks.usedAt} is null) < ${p('maxLive')}
    returning ${dashboardSignInLinks.tokenHash}`,
);

export interface LinkUse {
  tokenHash: string;
  /** The new session id's hash: the link records it, so a retried sign-in finds its own session. */
  sid: string;
  now: number;
  idleUntil: number;
  expiresAt: number;
  open: number;
  /** The id below the first one the link's database gives out (databases.ts `idBase`; 0 for DB). */
  base: number;
  /** The API version a new account is pinned to (DEFAULT_API_VERSION). */
  apiVersion: string;
}

/** Marks the link used by this sign-in, if it is unused and unexpired. */
export const useSignInLink = statement<LinkUse>(
  () => sql`update ${dashboardSignInLinks} set ${sql.identifier(dashboardSignInLinks.usedAt.name)} = ${p('now')},
      ${sql.identifier(dashboardSignInLinks.sessionHash.name)} = ${p('sid')}
    where ${dashboardSignInLinks.tokenHash} = ${p('tokenHash')} and ${dashboardSignInLinks.usedAt} is null and ${dashboardSignInLinks.expiresAt} > ${p('now')}`,
);

const linkUsedBySession = () =>
  sql`${dashboardSignInLinks.tokenHash} = ${p('tokenHash')} and ${dashboardSignInLinks.sessionHash} = ${p('sid')}`;

/**
 * With DASHBOARD_SIGNUP "open": the account of a new address, named after its local part. Its id
 * names the link's database as db/accounts.ts `insertAccount`'s do; the sign-in request claimed the
 * address for this database in the directory (dashboard/src/workflows.ts).
 */
export const createAccountFromLink = statement<LinkUse>(
  () => sql`insert into ${accounts} (id, name, email, created_at, api_version)
    select case when ${p('base')} = 0 then null else max(${p('base')}, coalesce((select max(${accounts.id}) from ${accounts}), 0)) + 1 end,
      substr(${dashboardSignInLinks.email}, 1, instr(${dashboardSignInLinks.email}, '@') - 1), ${dashboardSignInLinks.email}, ${p('now')}, ${p('apiVersion')}
    from ${dashboardSignInLinks} where ${p('open')} = 1 and ${linkUsedBySession()}
    on conflict do nothing`,
);

export const createSessionFromLink = statement<LinkUse>(
  () => sql`insert into ${dashboardSessions} (id_hash, account_id, created_at, idle_expires_at, expires_at)
    select ${p('sid')}, ${accounts.id}, ${p('now')}, ${p('idleUntil')}, ${p('expiresAt')}
    from ${dashboardSignInLinks} inner join ${accounts} on lower(${accounts.email}) = lower(${dashboardSignInLinks.email})
    where ${linkUsedBySession()}
    on conflict do nothing`,
);

// The audit log.

export interface AuditValues extends SessionCheck {
  auditId: string;
  action: string;
  target: string | null;
  address: string | null;
  userAgent: string | null;
}

/**
 * An audit row for the session's account and e-mail, written when `condition` holds (the change
 * it records happened). Retry-safe: `auditId` is drawn once by the request.
 */
export function auditWhen<Extra extends object = object>(condition: () => SQL = () => sql`1 = 1`) {
  return statement<AuditValues & Extra>(
    () => sql`insert into ${dashboardAudit} (id, account_id, actor, action, target, address, user_agent, created_at)
      select ${p('auditId')}, ${accounts.id}, ${accounts.email}, ${p('action')}, ${p('target')}, ${p('address')}, ${p('userAgent')}, ${p('now')}
      from ${dashboardSessions} inner join ${accounts} on ${accounts.id} = ${dashboardSessions.accountId}
      where ${liveSession()} and ${condition()}
      on conflict do nothing`,
  );
}

/** Sign-in, sign-out: the session itself is the condition. */
export const audit = auditWhen();

/**
 * A change's row, written when the change's last write statement (the one before it in the batch)
 * changed a row: a key inserted, rolled or revoked, an endpoint made, rotated, enabled, disabled
 * or deleted. A retry after the change committed changes nothing and writes no second row (its
 * first try's row is there, written in the same batch).
 */
export const auditChange = auditWhen(() => sql`changes() > 0`);

/** A resend: no write of its own, so the condition is that the endpoint and the event are the account's. */
export const auditResend = auditWhen<{ endpointId: string; eventId: string }>(
  () => sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${webhookEndpoints.accountId} = ${dashboardSessions.accountId})
    and exists (select 1 from ${events} where ${events.id} = ${p('eventId')} and ${events.accountId} = ${dashboardSessions.accountId})`,
);

export const auditPage = statement<SessionCheck & { before: number; limit: number }>(
  () => sql`select * from ${dashboardAudit} where ${dashboardAudit.accountId} = ${accountOfSession()} and ${dashboardAudit.seq} < ${p('before')}
    order by ${dashboardAudit.seq} desc limit ${p('limit')}`,
);

// Keys.

export const keysOfSession = statement<SessionCheck>(
  () => sql`select * from ${apiKeys} where ${apiKeys.accountId} = ${accountOfSession()} order by ${apiKeys.id} desc`,
);

export const insertKeyOfSession = insertKeyFrom<SessionCheck>(() => ({
  from: sql`from ${dashboardSessions} where ${liveSession()}`,
  accountId: sql`${dashboardSessions.accountId}`,
}));

export const keyByHashOfSession = statement<SessionCheck & { keyHash: string }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.keyHash} = ${p('keyHash')} and ${apiKeys.accountId} = ${accountOfSession()}`,
);

export const keyOfSession = statement<SessionCheck & { keyId: number }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.id} = ${p('keyId')} and ${apiKeys.accountId} = ${accountOfSession()}`,
);

export const rollKeyOfSession = rollStatements<SessionCheck>(() => sql`${apiKeys.accountId} = ${accountOfSession()}`);

export const revokeKeyOfSession = statement<SessionCheck & { keyId: number }>(
  () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.revokedAt.name)} = ${p('now')}
    where ${apiKeys.id} = ${p('keyId')} and ${apiKeys.accountId} = ${accountOfSession()} and ${apiKeys.revokedAt} is null`,
);

// Webhook endpoints.

/** The API's endpoint statements, owned by the session's account. */
export const sessionEndpoints = endpointStatements<SessionCheck>({
  account: accountOfSession,
  from: () => sql`from ${dashboardSessions} where ${liveSession()}`,
  accountId: () => sql`${dashboardSessions.accountId}`,
});

// Events.

export const eventOfSession = statement<SessionCheck & { eventId: string }>(
  () => sql`select * from ${events} where ${events.id} = ${p('eventId')} and ${events.accountId} = ${accountOfSession()}`,
);

function eventsPage(typed: boolean) {
  return statement<SessionCheck & { before: number; limit: number; type?: string }>(
    () => sql`select * from ${events} where ${events.accountId} = ${accountOfSession()} ${typed ? sql`and ${events.type} = ${p('type')}` : sql``}
      and ${events.seq} < ${p('before')} order by ${events.seq} desc limit ${p('limit')}`,
  );
}

export const eventPagesOfSession = { all: eventsPage(false), ofType: eventsPage(true) } as const;

// The account.

/** Scenarios stored: the count the API keeps for its quota (accounts.scenario_count), no rows counted. */
export const scenarioCount = statement<SessionCheck>(
  () => sql`select ${accounts.scenarioCount} as n from ${accounts} where ${accounts.id} = ${accountOfSession()}`,
);

// The daily prune (the dashboard Worker's cron).

export const pruneAudit = statement<{ before: number }>(() => sql`delete from ${dashboardAudit} where ${dashboardAudit.createdAt} < ${p('before')}`);
export const pruneSignInLinks = statement<{ before: number }>(
  () => sql`delete from ${dashboardSignInLinks} where ${dashboardSignInLinks.expiresAt} < ${p('before')}`,
);
export const pruneSessions = statement<{ now: number }>(
  () => sql`delete from ${dashboardSessions} where ${dashboardSessions.expiresAt} <= ${p('now')} or ${dashboardSessions.idleExpiresAt} <= ${p('now')}`,
);

// API versions (src/versions/): the session's account's pinned version, an upgrade and a rollback.

/** The account's version, the one before its last change, and when that change was made. */
export const sessionApiVersion = statement<SessionCheck>(
  () => sql`select ${accounts.apiVersion} as api_version, ${accounts.previousApiVersion} as previous_api_version,
    ${accounts.apiVersionChangedAt} as api_version_changed_at from ${accounts} where ${accounts.id} = ${accountOfSession()}`,
);

export interface ApiVersionChange extends SessionCheck {
  version: string;
  /** The version the page showed: nothing changes if the account has moved since. */
  from: string;
  /** 1: an upgrade (only to a newer version); 0: a rollback (only to the previous version, older, changed since `since`). */
  upgrade: number;
  since: number;
}

/** Versions are dates (YYYY-MM-DD), so their text orders them. */
export const setSessionApiVersion = statement<ApiVersionChange>(
  () => sql`update ${accounts} set
      ${sql.identifier(accounts.previousApiVersion.name)} = ${accounts.apiVersion},
      ${sql.identifier(accounts.apiVersionChangedAt.name)} = ${p('now')},
      ${sql.identifier(accounts.apiVersion.name)} = ${p('version')}
    where ${accounts.id} = ${accountOfSession()} and ${accounts.apiVersion} = ${p('from')} and (
      (${p('upgrade')} = 1 and ${accounts.apiVersion} < ${p('version')})
      or (${p('upgrade')} = 0 and ${accounts.previousApiVersion} = ${p('version')} and ${p('version')} < ${accounts.apiVersion}
        and ${accounts.apiVersionChangedAt} > ${p('since')}))`,
);
