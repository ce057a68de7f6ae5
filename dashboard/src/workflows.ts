// What each dashboard request does with D1, as one batch (one round trip): the session's touch and
// row head every batch, then the change (the API's own workflow where there is one:
// webhooks/workflows.ts over the session's statements), its audit row, and what the page shows
// after it, all by name. No Hono here.
import { mintApiKey } from '../../src/auth/issue-key.ts';
import { toApiKey } from '../../src/db/api-keys.ts';
import * as q from './db/statements.ts';
import { idBase } from '../../src/db/databases.ts';
import { claimEmail, databaseOfEmail } from '../../src/db/directory.ts';
import { dashboardAudit, type DashboardAuditRow } from './db/schema.ts';
import { toEvent } from '../../src/db/events.ts';
import { runBatch, type Batch, type BatchRows } from '../../src/db/execute.ts';
import { newChangeId } from '../../src/db/receipts.ts';
import type { ApiKey, Event, EventType, WebhookDelivery, WebhookEndpoint } from '../../src/db/schema.ts';
import type { RawRow, Session } from '../../src/db/statement.ts';
import { rowReader } from '../../src/db/rows.ts';
import { toWebhookDelivery, toWebhookEndpoint } from '../../src/db/webhooks.ts';
import { ApiError } from '../../src/http/problem.ts';
import type { KeyRing } from '../../src/webhooks/secret-box.ts';
import { endpointWorkflows, type Acting, type NewEndpoint } from '../../src/webhooks/workflows.ts';
import { SPEC_API_VERSION } from '../../src/api-versions.ts';
import type { Client } from './env.ts';
import { databaseOfSecret, hashSecret, LINK_TTL_MS, MAX_LIVE_LINKS, newSecretOn, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './session.ts';

/** The signed-in account, as the session's row gives it. */
export interface Me {
  accountId: number;
  name: string;
  email: string;
  accountCreatedAt: number;
  signedInAt: number;
}

/** A request's session: the cookie's id hashed, and the time the request is judged at. */
export type SessionRef = q.SessionCheck;

export async function sessionRef(sessionId: string, now = Date.now()): Promise<SessionRef> {
  return { sid: await hashSecret(sessionId), now };
}

/** The session is unknown, signed out or expired: nothing was read or changed; the app sends the browser to sign in. */
export class SignedOutError extends Error {
  constructor() {
    super('Not signed in');
    this.name = 'SignedOutError';
  }
}

/** A join (the session's member and account, under names of its own): read by hand, as its own shape. */
function toMe(row: RawRow | undefined): Me | null {
  if (!row) return null;
  return {
    accountId: row.account_id as number,
    name: row.name as string,
    email: row.email as string,
    accountCreatedAt: row.account_created_at as number,
    signedInAt: row.signed_in_at as number,
  };
}

/** What a change records in the audit log. */
interface AuditEntry {
  action: string;
  target: string | null;
}

function auditValues(ref: SessionRef, client: Client, entry: AuditEntry): q.AuditValues {
  return { ...ref, auditId: crypto.randomUUID(), ...entry, address: client.address, userAgent: client.userAgent };
}

/** A page's statements: what it shows, read after the change in the same batch. */
type PageReads = (check: SessionRef) => Batch;

/**
 * A signed-in request's runner: an `Acting` (webhooks/workflows.ts) whose batch is headed by the
 * session's touch and row, and followed by the change's audit row (written only if the change
 * changed something: dashboard/src/db/statements.ts `auditChange`) and the page's own reads. `me` and `page`
 * hold what the batch read, once it ran, even when the workflow then refuses (an unknown endpoint).
 */
class SignedIn<P extends PageReads> implements Acting<SessionRef> {
  me: Me | null = null;
  page: BatchRows<ReturnType<P>> | null = null;
  readonly session: Session;
  readonly key: SessionRef;
  private readonly reads: P;
  private readonly audit: q.AuditValues | undefined;

  constructor(session: Session, key: SessionRef, reads: P, audit?: q.AuditValues) {
    this.session = session;
    this.key = key;
    this.reads = reads;
    this.audit = audit;
  }

  // A bound function: the API's workflows take it apart (`{ session, key, run }`).
  run = async <B extends Batch>(statements: B): Promise<{ rows: BatchRows<B> }> => {
    const { session, key } = this;
    const page = this.reads(key);
    const batch: Batch = {
      '#touch': q.touchSession(session, { ...key, idleUntil: key.now + SESSION_IDLE_MS, staleBefore: key.now + SESSION_IDLE_MS - q.TOUCH_GRANULARITY_MS }),
      '#me': q.sessionAccount(session, key),
      ...statements,
      ...(this.audit ? { '#audit': q.auditChange(session, this.audit) } : {}),
    };
    for (const [name, statement] of Object.entries(page)) batch[`#page.${name}`] = statement;
    const all = await runBatch(session, batch);
    this.me = toMe(all['#me']?.[0]);
    if (!this.me) throw new SignedOutError();
    const rows: Record<string, RawRow[]> = {};
    const shown: Record<string, RawRow[]> = {};
    for (const [name, value] of Object.entries(all)) {
      if (name.startsWith('#page.')) shown[name.slice('#page.'.length)] = value;
      else if (!name.startsWith('#')) rows[name] = value;
    }
    this.page = shown as BatchRows<ReturnType<P>>;
    return { rows: rows as BatchRows<B> };
  };

  /** What the page reads, for a request that changes nothing. */
  async read(): Promise<{ me: Me; page: BatchRows<ReturnType<P>> }> {
    await this.run({});
    return { me: this.me!, page: this.page! };
  }
}

/** Runs `work` (a change through `acting`); a refusal (ApiError) comes back beside what the page read. */
async function attempt<T, P extends PageReads>(acting: SignedIn<P>, work: () => Promise<T>): Promise<{ me: Me; page: BatchRows<ReturnType<P>>; done: T | null; refused: ApiError | null }> {
  try {
    const done = await work();
    return { me: acting.me!, page: acting.page!, done, refused: null };
  } catch (error) {
    // Refused after the batch ran (an endpoint not the account's, the endpoint limit): the page's rows are there.
    if (error instanceof ApiError && acting.me && acting.page) return { me: acting.me, page: acting.page, done: null, refused: error };
    throw error;
  }
}

// Sign-in.

/**
 * Stores a sign-in link for the address when it may sign in (an account's address, or any with
 * open sign-up) and holds fewer than MAX_LIVE_LINKS live links: the token to e-mail, or null. The
 * caller answers the same either way.
 *
 * Two round trips (docs/decisions.md, "Capacity past one database"): the directory in the first of
 * `databases` says which database holds the address's account (with open sign-up, a new address is
 * claimed there for the database with the fewest accounts, where its account will be made), then
 * the link is stored in that database. Its token names it, so the sign-in is one round trip.
 */
export async function requestSignInLink(databases: Session[], input: { email: string; open: boolean; now: number }): Promise<string | null> {
  const directory = databases[0]!;
  const database = input.open
    ? (await claimEmail(directory, { email: input.email, databases: databases.length, changeId: newChangeId(), now: input.now })).database
    : await databaseOfEmail(directory, input.email);
  const session = database === null ? undefined : databases[database];
  if (database === null || !session) return null;
  const token = newSecretOn(database);
  const values = {
    tokenHash: await hashSecret(token),
    email: input.email,
    now: input.now,
    expiresAt: input.now + LINK_TTL_MS,
    open: input.open ? 1 : 0,
    maxLive: MAX_LIVE_LINKS,
  };
  const { link } = await runBatch(session, { link: q.insertSignInLink(session, values) });
  return link.length > 0 ? token : null;
}

/**
 * Uses a sign-in link: marks it used, makes the account (open sign-up), makes the session and
 * records the sign-in, in one batch on the database the link's token names (of `databases`), which
 * the session's id names too. The new session's id, or null for a link that is unknown, used or
 * expired (or whose account is gone).
 */
export async function signIn(
  databases: Session[],
  input: { token: string; open: boolean; now: number; client: Client; apiVersion?: string },
): Promise<{ sessionId: string; me: Me } | null> {
  const database = databaseOfSecret(input.token);
  const session = databases[database];
  if (!session) return null;
  const sessionId = newSecretOn(database);
  const sid = await hashSecret(sessionId);
  const use: q.LinkUse = {
    tokenHash: await hashSecret(input.token),
    sid,
    now: input.now,
    idleUntil: input.now + SESSION_IDLE_MS,
    expiresAt: input.now + SESSION_ABSOLUTE_MS,
    open: input.open ? 1 : 0,
    base: idBase(database),
    apiVersion: input.apiVersion ?? SPEC_API_VERSION,
  };
  const ref = { sid, now: input.now };
  const { me } = await runBatch(session, {
    use: q.useSignInLink(session, use),
    account: q.createAccountFromLink(session, use),
    session: q.createSessionFromLink(session, use),
    audit: q.audit(session, auditValues(ref, input.client, { action: 'signed_in', target: null })),
    me: q.sessionAccount(session, ref),
  });
  const found = toMe(me[0]);
  return found ? { sessionId, me: found } : null;
}

export async function signOut(session: Session, ref: SessionRef, client: Client): Promise<void> {
  await runBatch(session, {
    audit: q.audit(session, auditValues(ref, client, { action: 'signed_out', target: null })),
    end: q.deleteSession(session, ref),
  });
}

/** Ends every session of the account (this one too), and records it. */
export async function signOutEverywhere(session: Session, ref: SessionRef, client: Client): Promise<Me> {
  const acting = new SignedIn(session, ref, () => ({}));
  await acting.run({
    audit: q.audit(session, auditValues(ref, client, { action: 'signed_out_everywhere', target: null })),
    end: q.deleteAccountSessions(session, ref),
  });
  return acting.me!;
}

/** Just the session (a page with nothing of its own to read). */
export async function whoAmI(session: Session, ref: SessionRef): Promise<Me> {
  return (await new SignedIn(session, ref, () => ({})).read()).me;
}

// Keys: the API's minting (auth/issue-key.ts) and its insert and roll statements, owned by the session.

export interface KeysPage {
  me: Me;
  keys: ApiKey[];
}

const keyList = (session: Session) => (check: SessionRef) => ({ keys: q.keysOfSession(session, check) });

export async function keysPage(session: Session, ref: SessionRef): Promise<KeysPage> {
  const { me, page } = await new SignedIn(session, ref, keyList(session)).read();
  return { me, keys: page.keys.map(toApiKey) };
}

export interface KeyInput {
  /** The session's database (its id names it): the key names it too. */
  database: number;
  name: string;
  scope: 'read' | 'read_write';
  expiresAt: number | null;
}

/** A key issued to the session's account, minted as the admin API mints one: the full key, shown once. */
export async function createKey(session: Session, ref: SessionRef, client: Client, input: KeyInput): Promise<KeysPage & { key: string | null }> {
  const { key, ...minted } = await mintApiKey(input.database);
  const audit = auditValues(ref, client, { action: 'key.created', target: `${input.name} (${minted.prefix}…${minted.lastFour})` });
  const acting = new SignedIn(session, ref, keyList(session), audit);
  const values = { ...ref, ...minted, ...input, now: ref.now };
  const { rows } = await acting.run({ insert: q.insertKeyOfSession(session, values), stored: q.keyByHashOfSession(session, values) });
  return { me: acting.me!, keys: acting.page!.keys.map(toApiKey), key: rows.stored.length > 0 ? key : null };
}

/** A new key with the old one's name and scope; the old one stops working `graceMs` from now. */
export async function rollKey(
  session: Session,
  ref: SessionRef,
  client: Client,
  input: { database: number; keyId: number; graceMs: number },
): Promise<KeysPage & { key: string | null; rolled: ApiKey | null }> {
  const { key, ...minted } = await mintApiKey(input.database);
  const values = { ...ref, ...minted, keyId: input.keyId, graceUntil: ref.now + input.graceMs };
  const target = `key ${input.keyId} → ${minted.prefix}…${minted.lastFour}, the old one expires ${new Date(values.graceUntil).toISOString()}`;
  const acting = new SignedIn(session, ref, keyList(session), auditValues(ref, client, { action: 'key.rolled', target }));
  const { rows } = await acting.run({
    insert: q.rollKeyOfSession.insert(session, values),
    expireOld: q.rollKeyOfSession.expireOld(session, values),
    rolled: q.keyByHashOfSession(session, values),
  });
  const rolled = rows.rolled[0] ? toApiKey(rows.rolled[0]) : null;
  return { me: acting.me!, keys: acting.page!.keys.map(toApiKey), key: rolled ? key : null, rolled };
}

export async function revokeKey(session: Session, ref: SessionRef, client: Client, keyId: number): Promise<KeysPage & { revoked: ApiKey | null }> {
  const values = { ...ref, keyId };
  const acting = new SignedIn(session, ref, keyList(session), auditValues(ref, client, { action: 'key.revoked', target: `key ${keyId}` }));
  const { rows } = await acting.run({ revoke: q.revokeKeyOfSession(session, values), key: q.keyOfSession(session, values) });
  const [row] = rows.key;
  const revoked = row && row.revoked_at !== null ? toApiKey(row) : null;
  return { me: acting.me!, keys: acting.page!.keys.map(toApiKey), revoked };
}

// Webhook endpoints: the API's workflows, over the session's statements.

const endpoints = endpointWorkflows(q.sessionEndpoints);

export interface WebhooksPage {
  me: Me;
  endpoints: WebhookEndpoint[];
}

const endpointList = (session: Session) => (check: SessionRef) => ({ endpoints: q.sessionEndpoints.endpointsOfCaller(session, check) });

export async function webhooksPage(session: Session, ref: SessionRef): Promise<WebhooksPage> {
  const { me, page } = await new SignedIn(session, ref, endpointList(session)).read();
  return { me, endpoints: page.endpoints.map(toWebhookEndpoint) };
}

/** An endpoint made as the API makes one (canonical URL checked by the caller, secret sealed, the per-account limit). */
export async function createEndpoint(
  session: Session,
  ref: SessionRef,
  client: Client,
  ring: KeyRing,
  input: NewEndpoint,
): Promise<WebhooksPage & { created: { endpoint: WebhookEndpoint; secret: string } | null; refused: ApiError | null }> {
  const acting = new SignedIn(session, ref, endpointList(session), auditValues(ref, client, { action: 'webhook_endpoint.created', target: input.url }));
  const { me, page, done, refused } = await attempt(acting, () => endpoints.createEndpoint(acting, ring, input));
  return { me, endpoints: page.endpoints.map(toWebhookEndpoint), created: done, refused };
}

export interface EndpointPage {
  me: Me;
  endpoint: WebhookEndpoint | null;
  deliveries: WebhookDelivery[];
}

/** Attempts shown on an endpoint's page (the API pages through all of them). */
export const DELIVERIES_SHOWN = 50;

const endpointView = (session: Session, endpointId: string) => (check: SessionRef) => ({
  endpoint: q.sessionEndpoints.endpointOfCaller(session, { ...check, endpointId }),
  deliveries: q.sessionEndpoints.deliveryPages.first(session, { ...check, endpointId, limit: DELIVERIES_SHOWN }),
});

function toEndpointPage(me: Me, page: { endpoint: RawRow[]; deliveries: RawRow[] }): EndpointPage {
  return { me, endpoint: page.endpoint[0] ? toWebhookEndpoint(page.endpoint[0]) : null, deliveries: page.deliveries.map(toWebhookDelivery) };
}

export async function endpointPage(session: Session, ref: SessionRef, endpointId: string): Promise<EndpointPage> {
  const { me, page } = await new SignedIn(session, ref, endpointView(session, endpointId)).read();
  return toEndpointPage(me, page);
}

/** A new signing secret (shown once); the old one keeps signing for `expiresInSeconds`. */
export async function rotateSecret(
  session: Session,
  ref: SessionRef,
  client: Client,
  ring: KeyRing,
  input: { endpointId: string; expiresInSeconds: number },
): Promise<EndpointPage & { rotated: { secret: string; previousExpiresAt: number | null } | null }> {
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId), auditValues(ref, client, { action: 'webhook_endpoint.secret_rotated', target: input.endpointId }));
  const { me, page, done } = await attempt(acting, () => endpoints.rotateEndpointSecret(acting, ring, input.endpointId, input.expiresInSeconds, newChangeId()));
  return { ...toEndpointPage(me, page), rotated: done ? { secret: done.secret, previousExpiresAt: done.previousExpiresAt } : null };
}

/** Disabled: nothing is delivered to it; enabled: delivered to again, its failures counted afresh. */
export async function setEndpointStatus(
  session: Session,
  ref: SessionRef,
  client: Client,
  input: { endpointId: string; status: 'enabled' | 'disabled' },
): Promise<EndpointPage & { changed: boolean }> {
  const action = input.status === 'enabled' ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled';
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId), auditValues(ref, client, { action, target: input.endpointId }));
  const change = input.status === 'enabled' ? endpoints.enableEndpoint : endpoints.disableEndpoint;
  const { me, page, done } = await attempt(acting, () => change(acting, input.endpointId));
  return { ...toEndpointPage(me, page), changed: done !== null };
}

/** Deletes the endpoint (its attempts go with it); whether there was one to delete. */
export async function deleteEndpoint(session: Session, ref: SessionRef, client: Client, endpointId: string): Promise<WebhooksPage & { deleted: boolean }> {
  const acting = new SignedIn(session, ref, endpointList(session), auditValues(ref, client, { action: 'webhook_endpoint.deleted', target: endpointId }));
  const { me, page, refused } = await attempt(acting, () => endpoints.deleteEndpoint(acting, endpointId, newChangeId()));
  return { me, endpoints: page.endpoints.map(toWebhookEndpoint), deleted: refused === null };
}

/**
 * Checks that the endpoint and the event are both the account's and records the resend; the
 * caller then queues it. Also the endpoint's page, to show after.
 */
export async function prepareResend(
  session: Session,
  ref: SessionRef,
  client: Client,
  input: { endpointId: string; eventId: string },
): Promise<EndpointPage & { event: Event | null }> {
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId));
  const audit = { ...auditValues(ref, client, { action: 'webhook_delivery.resent', target: `${input.eventId} → ${input.endpointId}` }), ...input };
  const { rows } = await acting.run({
    event: q.eventOfSession(session, { ...ref, eventId: input.eventId }),
    audit: q.auditResend(session, audit),
  });
  return { ...toEndpointPage(acting.me!, acting.page!), event: rows.event[0] ? toEvent(rows.event[0]) : null };
}

// Events, the account, the audit log.

export const EVENTS_PER_PAGE = 50;

export async function eventsPage(
  session: Session,
  ref: SessionRef,
  input: { type: EventType | null; before: number | null },
): Promise<{ me: Me; events: Event[]; more: boolean }> {
  const values = { ...ref, before: input.before ?? Number.MAX_SAFE_INTEGER, limit: EVENTS_PER_PAGE + 1 };
  const { me, page } = await new SignedIn(session, ref, () => ({
    events: input.type ? q.eventPagesOfSession.ofType(session, { ...values, type: input.type }) : q.eventPagesOfSession.all(session, values),
  })).read();
  const list = page.events.map(toEvent);
  return { me, events: list.slice(0, EVENTS_PER_PAGE), more: list.length > EVENTS_PER_PAGE };
}

/** The account's API version, the one before its last change, and when that was (src/versions/). */
export interface AccountApiVersion {
  current: string;
  previous: string | null;
  changedAt: number | null;
}

const accountReads = (session: Session) => (check: SessionRef) => ({
  scenarios: q.scenarioCount(session, check),
  sessions: q.countSessions(session, check),
  apiVersion: q.sessionApiVersion(session, check),
});

type AccountPage = { me: Me; scenarios: number; sessions: number; apiVersion: AccountApiVersion };

function toAccountPage(me: Me, page: BatchRows<ReturnType<ReturnType<typeof accountReads>>>): AccountPage {
  const version = page.apiVersion[0];
  return {
    me,
    scenarios: Number(page.scenarios[0]?.n ?? 0),
    sessions: Number(page.sessions[0]?.n ?? 0),
    apiVersion: {
      current: (version?.api_version as string | undefined) ?? '',
      previous: (version?.previous_api_version as string | null | undefined) ?? null,
      changedAt: (version?.api_version_changed_at as number | null | undefined) ?? null,
    },
  };
}

export async function accountPage(session: Session, ref: SessionRef): Promise<AccountPage> {
  const { me, page } = await new SignedIn(session, ref, accountReads(session)).read();
  return toAccountPage(me, page);
}

/** How long after an upgrade the account may return to the version it left. */
export const API_VERSION_ROLLBACK_MS = 72 * 60 * 60 * 1000;

/**
 * Upgrades the account to a newer API version, or rolls it back to the one it left within 72
 * hours; audit-logged when it changed anything. One round trip; `changed` false when the version
 * was not one the account may move to (the page read after it says where it is).
 */
export async function changeApiVersion(
  session: Session,
  ref: SessionRef,
  client: Client,
  input: { version: string; upgrade: boolean; from: string },
): Promise<AccountPage & { changed: boolean }> {
  const action = input.upgrade ? 'api_version.upgraded' : 'api_version.rolled_back';
  const acting = new SignedIn(session, ref, accountReads(session), auditValues(ref, client, { action, target: `${input.from} → ${input.version}` }));
  await acting.run({
    change: q.setSessionApiVersion(session, { ...ref, version: input.version, from: input.from, upgrade: input.upgrade ? 1 : 0, since: ref.now - API_VERSION_ROLLBACK_MS }),
  });
  const page = toAccountPage(acting.me!, acting.page!);
  return { ...page, changed: page.apiVersion.current === input.version && page.apiVersion.previous === input.from };
}

export const AUDIT_PER_PAGE = 100;

export async function auditPage(session: Session, ref: SessionRef, before: number | null): Promise<{ me: Me; entries: DashboardAuditRow[]; more: boolean }> {
  const { me, page } = await new SignedIn(session, ref, (check) => ({
    entries: q.auditPage(session, { ...check, before: before ?? Number.MAX_SAFE_INTEGER, limit: AUDIT_PER_PAGE + 1 }),
  })).read();
  const entries = page.entries.map(toAuditRow);
  return { me, entries: entries.slice(0, AUDIT_PER_PAGE), more: entries.length > AUDIT_PER_PAGE };
}

const toAuditRow = rowReader(dashboardAudit);

/** The daily clean-up: audit rows past a year, links a day past expiry, ended sessions. */
export async function prune(session: Session, now: number): Promise<void> {
  const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
  await runBatch(session, {
    audit: q.pruneAudit(session, { before: now - YEAR_MS }),
    links: q.pruneSignInLinks(session, { before: now - 24 * 60 * 60 * 1000 }),
    sessions: q.pruneSessions(session, { now }),
  });
}
