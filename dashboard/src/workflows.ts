// What each dashboard request does with D1, as one batch (one round trip): the session's touch and
// row head every batch, then the change (the API's own workflow where there is one:
// webhooks/workflows.ts over the session's statements), its audit row, and what the page shows
// after it, all by name. No Hono here.
import { mintApiKey } from '../../src/auth/issue-key.ts';
import { toApiKey } from '../../src/db/api-keys.ts';
import * as q from './db/statements.ts';
import { idBase } from '../../src/db/databases.ts';
import { claimEmail, claimEmailOn, databaseOfEmail } from '../../src/db/directory.ts';
import { dashboardAudit, dashboardInvitations, dashboardMembers, dashboardPasskeys, type DashboardAuditRow, type DashboardPasskey, type DashboardInvitation, type DashboardMember } from './db/schema.ts';
import { toEvent } from '../../src/db/events.ts';
import { runBatch, type Batch, type BatchRows } from '../../src/db/execute.ts';
import { newChangeId } from '../../src/db/receipts.ts';
import type { ApiKey, Event, EventType, WebhookDelivery, WebhookEndpoint } from '../../src/db/schema.ts';
import type { RawRow, Session } from '../../src/db/statement.ts';
import { rowReader } from '../../src/db/rows.ts';
import { toWebhookDelivery, toWebhookEndpoint } from '../../src/db/webhooks.ts';
import { ApiError } from '../../src/http/problem.ts';
import type { KeyRing } from '../../src/webhooks/secret-box.ts';
import { newEndpointId, newWebhookSecret } from '../../src/webhooks/signing.ts';
import { endpointWorkflows, type Acting, type NewEndpoint } from '../../src/webhooks/workflows.ts';
import { SPEC_API_VERSION } from '../../src/api-versions.ts';
import type { Client } from './env.ts';
import { CHALLENGE_TTL_MS, databaseOfHandle, PasskeyError, userHandle, verifyAssertion, type Assertion, type Registration } from './passkeys.ts';
import type { Flash } from './flash.ts';
import { rolesFor, type Action, type Role } from './permissions.ts';
import { databaseOfSecret, hashSecret, LINK_TTL_MS, MAX_LIVE_LINKS, newSecretOn, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './session.ts';

/** The signed-in account, as the session's row gives it. */
export interface Me {
  accountId: number;
  name: string;
  /** The account's own address (the one it was made with). */
  accountEmail: string;
  /** The member signed in: their id, address and role. */
  memberId: number;
  email: string;
  role: Role;
  accountCreatedAt: number;
  signedInAt: number;
  /** The account is in the write pause of a move: changes are refused until it ends (seconds). */
  paused: boolean;
  /** What the last change left to show once, sealed (flash.ts); read (and marked read) by a page's batch. */
  flash: string | null;
}

/** A request's session: the cookie's id hashed, and the time the request is judged at. */
export type SessionRef = q.SessionCheck;

const READ = rolesFor('read');

/** A request's session, able to read every page (every role reads). */
export async function sessionRef(sessionId: string, now = Date.now()): Promise<SessionRef> {
  return { sid: await hashSecret(sessionId), now, roles: READ, change: 0 };
}

/**
 * The session check of a change: the roles the permission table allows for `action` (permissions.ts),
 * bound into every statement of the change, so a refused role's batch writes nothing.
 */
export function guard(ref: SessionRef, action: Action): SessionRef {
  return { ...ref, roles: rolesFor(action), change: 1 };
}

/** The member's role may not make this change (permissions.ts): nothing was changed; the app answers 403. */
export class ForbiddenError extends Error {
  readonly role: Role;
  constructor(role: Role) {
    super('Not allowed for this role');
    this.name = 'ForbiddenError';
    this.role = role;
  }
}

/**
 * The account is in the write pause of a move to another database (src/moves/): its copy is being
 * verified, so the change's statements wrote nothing; the app answers 503 with Retry-After.
 */
export class AccountMovingError extends Error {
  constructor() {
    super('The account is being moved');
    this.name = 'AccountMovingError';
  }
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
    accountEmail: row.account_email as string,
    memberId: row.member_id as number,
    email: row.email as string,
    role: row.role as Role,
    accountCreatedAt: row.account_created_at as number,
    signedInAt: row.signed_in_at as number,
    paused: row.paused === 1,
    flash: null,
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

/** A change's record: its audit row (the statement written after the change), and the flash it leaves (sealed). */
export interface ChangeRecord {
  /** Absent when the change's own statements hold its audit row (when it must precede the change). */
  audit?: D1PreparedStatement;
  auditId: string;
  flash?: string | undefined;
}

/** The usual record: an audit row written when the change's last write changed a row (db/statements.ts `auditChange`). */
function changeRecord(session: Session, values: q.AuditValues, flash?: string): ChangeRecord {
  return { audit: q.auditChange(session, values), auditId: values.auditId, flash };
}

/** A page's statements: what it shows, read after the change in the same batch. */
type PageReads = (check: SessionRef) => Batch;

/**
 * A signed-in request's runner: an `Acting` (webhooks/workflows.ts) whose batch is headed by the
 * session's touch and row, and followed by the change's audit row and flash (written only if the
 * change changed something) and the page's own reads. A page that changes nothing clears the flash
 * it shows. `me` and `page` hold what the batch read, once it ran, even when the workflow then
 * refuses (an unknown endpoint).
 */
class SignedIn<P extends PageReads> implements Acting<SessionRef> {
  me: Me | null = null;
  page: BatchRows<ReturnType<P>> | null = null;
  readonly session: Session;
  /** The change's session check (guarded by its roles); `readKey` is the pages' (every role). */
  readonly key: SessionRef;
  private readonly readKey: SessionRef;
  private readonly reads: P;
  private readonly change: ChangeRecord | undefined;

  constructor(session: Session, key: SessionRef, reads: P, change?: ChangeRecord) {
    this.session = session;
    this.key = key;
    this.readKey = { ...key, roles: READ, change: 0 };
    this.reads = reads;
    this.change = change;
  }

  // A bound function: the API's workflows take it apart (`{ session, key, run }`).
  run = async <B extends Batch>(statements: B): Promise<{ rows: BatchRows<B> }> => {
    const { session, key, readKey, change } = this;
    const page = this.reads(readKey);
    const batch: Batch = {
      '#touch': q.touchSession(session, { ...readKey, idleUntil: key.now + SESSION_IDLE_MS, staleBefore: key.now + SESSION_IDLE_MS - q.TOUCH_GRANULARITY_MS }),
      '#me': q.sessionAccount(session, readKey),
      ...statements,
      ...(change?.audit ? { '#audit': change.audit } : {}),
      ...(change?.flash ? { '#flash': q.setFlash(session, { ...key, flash: change.flash, auditId: change.auditId }) } : {}),
    };
    for (const [name, statement] of Object.entries(page)) batch[`#page.${name}`] = statement;
    const all = await runBatch(session, batch);
    this.me = toMe(all['#me']?.[0]);
    if (!this.me) throw new SignedOutError();
    // Refused by the permission table: the change's statements, guarded by its roles, wrote nothing.
    if (key.roles !== READ && !(JSON.parse(key.roles) as Role[]).includes(this.me.role)) throw new ForbiddenError(this.me.role);
    // Held by a move's write pause: the change's statements, guarded by it, wrote nothing.
    if (key.change === 1 && this.me.paused) throw new AccountMovingError();
    this.me.flash = (all['#flash']?.[0]?.flash as string | null | undefined) ?? null;
    const rows: Record<string, RawRow[]> = {};
    const shown: Record<string, RawRow[]> = {};
    for (const [name, value] of Object.entries(all)) {
      if (name.startsWith('#page.')) shown[name.slice('#page.'.length)] = value;
      else if (!name.startsWith('#')) rows[name] = value;
    }
    this.page = shown as BatchRows<ReturnType<P>>;
    return { rows: rows as BatchRows<B> };
  };

  /** What the page reads, for a request that changes nothing, with the flash it shows (marked read). */
  async read(): Promise<{ me: Me; page: BatchRows<ReturnType<P>> }> {
    const values = { ...this.readKey, readId: crypto.randomUUID() };
    await this.run({ '#flash': q.flashToShow(this.session, values), '#markFlashRead': q.markFlashRead(this.session, values) });
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
 * claimed there for the database with the most room, where its account will be made), then
 * the link is stored in that database. Its token names it, so the sign-in is one round trip.
 */
export async function requestSignInLink(databases: Session[], input: { email: string; open: boolean; now: number; maxBytes: number }): Promise<string | null> {
  const directory = databases[0]!;
  // Open sign-up with every database past 80 % of its size: no claim, so no link (answered alike).
  const database = input.open
    ? ((await claimEmail(directory, { email: input.email, databases: databases.length, maxBytes: input.maxBytes, changeId: newChangeId(), now: input.now }))?.database ?? null)
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
  const ref: SessionRef = { sid, now: input.now, roles: READ, change: 0 };
  const { me } = await runBatch(session, {
    use: q.useSignInLink(session, use),
    account: q.createAccountFromLink(session, use),
    owner: q.firstOwnerFromLink(session, use),
    session: q.createSessionFromLink(session, use),
    audit: q.audit(session, auditValues(ref, input.client, { action: 'signed_in', target: null })),
    me: q.sessionAccount(session, ref),
  });
  const found = toMe(me[0]);
  return found ? { sessionId, me: found } : null;
}

/**
 * What a sign-in link signs into, for its confirmation page (one round trip, on the database its
 * token names): the address and the account's name (null: open sign-up makes the account), or
 * null for a link that is unknown, used or expired. Reads only: the page's button signs in.
 */
export async function signInLinkTarget(databases: Session[], token: string, now: number): Promise<{ email: string; name: string | null } | null> {
  const session = databases[databaseOfSecret(token)];
  if (!session) return null;
  const { link } = await runBatch(session, { link: q.signInLinkAccount(session, { tokenHash: await hashSecret(token), now }) });
  const [row] = link;
  return row ? { email: row.email as string, name: (row.name as string | null) ?? null } : null;
}

export async function signOut(session: Session, ref: SessionRef, client: Client): Promise<void> {
  await runBatch(session, {
    audit: q.audit(session, auditValues(ref, client, { action: 'signed_out', target: null })),
    end: q.deleteSession(session, ref),
  });
}

/** Ends every session of the signed-in member (this one too), and records it. */
export async function signOutEverywhere(session: Session, ref: SessionRef, client: Client): Promise<Me> {
  const acting = new SignedIn(session, ref, () => ({}));
  await acting.run({
    audit: q.audit(session, auditValues(ref, client, { action: 'signed_out_everywhere', target: null })),
    end: q.deleteMemberSessions(session, ref),
  });
  return acting.me!;
}

/** Just the session (a page with nothing of its own to read). */
export async function whoAmI(session: Session, ref: SessionRef): Promise<Me> {
  return (await new SignedIn(session, ref, () => ({})).read()).me;
}

// Keys: the API's minting (auth/issue-key.ts) and its insert and roll statements, owned by the session.

/** Seals what the page after a change shows once (flash.ts), under the request's session. */
export type Seal = (flash: Flash) => Promise<string>;

/** A key as the keys page shows it: with the member who made it in the dashboard (null: the admin API or CLI). */
export type KeyRow = ApiKey & { createdBy: string | null };

const toKeyRow = (row: RawRow): KeyRow => ({ ...toApiKey(row), createdBy: (row.created_by as string | null | undefined) ?? null });

export interface KeysPage {
  me: Me;
  keys: KeyRow[];
}

const keyList = (session: Session) => (check: SessionRef) => ({ keys: q.keysOfSession(session, check) });

export async function keysPage(session: Session, ref: SessionRef): Promise<KeysPage> {
  const { me, page } = await new SignedIn(session, ref, keyList(session)).read();
  return { me, keys: page.keys.map(toKeyRow) };
}

export interface KeyInput {
  /** The session's database (its id names it): the key names it too. */
  database: number;
  name: string;
  scope: 'read' | 'read_write';
  expiresAt: number | null;
}

/**
 * A key issued to the session's account, minted as the admin API mints one; the full key is left
 * for the next page to show once. Whether it was stored.
 */
export async function createKey(session: Session, ref: SessionRef, client: Client, seal: Seal, input: KeyInput): Promise<KeysPage & { created: boolean }> {
  ref = guard(ref, 'keys.create');
  const { key, ...minted } = await mintApiKey(input.database);
  const values = { ...ref, ...minted, ...input, now: ref.now };
  const audit = { ...auditValues(ref, client, { action: 'key.created', target: null }), keyHash: minted.keyHash };
  const change = { audit: q.auditKeyCreated(session, audit), auditId: audit.auditId, flash: await seal({ kind: 'key.created', key }) };
  const acting = new SignedIn(session, ref, keyList(session), change);
  const { rows } = await acting.run({
    insert: q.insertKeyOfSession(session, values),
    creator: q.recordKeyCreator(session, values),
    stored: q.keyByHashOfSession(session, values),
  });
  return { me: acting.me!, keys: acting.page!.keys.map(toKeyRow), created: rows.stored.length > 0 };
}

/**
 * A new key with the old one's name and scope, and no expiry (a roll replaces a credential; the
 * old key's expiry may be the grace of an earlier roll); the old one stops working `graceMs` from
 * now, or at its own earlier expiry. Whether it was rolled.
 */
export async function rollKey(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { database: number; keyId: number; graceMs: number },
): Promise<KeysPage & { rolled: boolean }> {
  ref = guard(ref, 'keys.roll');
  const { key, ...minted } = await mintApiKey(input.database);
  const values = { ...ref, ...minted, keyId: input.keyId, graceUntil: ref.now + input.graceMs };
  const audit = { ...auditValues(ref, client, { action: 'key.rolled', target: null }), keyId: input.keyId, keyHash: minted.keyHash };
  const change = { audit: q.auditKeyRolled(session, audit), auditId: audit.auditId, flash: await seal({ kind: 'key.rolled', key, from: input.keyId }) };
  const acting = new SignedIn(session, ref, keyList(session), change);
  const { rows } = await acting.run({
    insert: q.rollKeyOfSession.insert(session, values),
    expireOld: q.rollKeyOfSession.expireOld(session, values),
    creator: q.recordKeyCreator(session, values),
    rolled: q.keyByHashOfSession(session, values),
  });
  return { me: acting.me!, keys: acting.page!.keys.map(toKeyRow), rolled: rows.rolled.length > 0 };
}

export async function revokeKey(session: Session, ref: SessionRef, client: Client, seal: Seal, keyId: number): Promise<KeysPage & { revoked: boolean }> {
  ref = guard(ref, 'keys.revoke');
  const values = { ...ref, keyId };
  const audit = { ...auditValues(ref, client, { action: 'key.revoked', target: null }), keyId };
  const change = { audit: q.auditKeyRevoked(session, audit), auditId: audit.auditId, flash: await seal({ kind: 'key.revoked', keyId }) };
  const acting = new SignedIn(session, ref, keyList(session), change);
  const { rows } = await acting.run({ revoke: q.revokeKeyOfSession(session, values), key: q.keyOfSession(session, values) });
  const [row] = rows.key;
  return { me: acting.me!, keys: acting.page!.keys.map(toKeyRow), revoked: row !== undefined && row.revoked_at !== null };
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

/**
 * An endpoint made as the API makes one (canonical URL checked by the caller, secret sealed, the
 * per-account limit); its secret is left for the next page to show once. Its id, or the refusal.
 */
export async function createEndpoint(
  session: Session,
  ref: SessionRef,
  client: Client,
  ring: KeyRing,
  seal: Seal,
  input: NewEndpoint,
): Promise<WebhooksPage & { created: string | null; refused: ApiError | null }> {
  ref = guard(ref, 'webhooks.create');
  const drawn = { endpointId: newEndpointId(), secret: newWebhookSecret() };
  const audit = auditValues(ref, client, { action: 'webhook_endpoint.created', target: input.url });
  const acting = new SignedIn(session, ref, endpointList(session), changeRecord(session, audit, await seal({ kind: 'endpoint.created', secret: drawn.secret, endpointId: drawn.endpointId })));
  const { me, page, done, refused } = await attempt(acting, () => endpoints.createEndpoint(acting, ring, input, drawn));
  return { me, endpoints: page.endpoints.map(toWebhookEndpoint), created: done ? done.endpoint.id : null, refused };
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

/** A new signing secret (left for the next page to show once); the old one keeps signing for `expiresInSeconds`. */
export async function rotateSecret(
  session: Session,
  ref: SessionRef,
  client: Client,
  ring: KeyRing,
  seal: Seal,
  input: { endpointId: string; expiresInSeconds: number },
): Promise<EndpointPage & { rotated: boolean }> {
  ref = guard(ref, 'webhooks.rotate');
  const secret = newWebhookSecret();
  const previousExpiresAt = input.expiresInSeconds === 0 ? null : ref.now + input.expiresInSeconds * 1000;
  const audit = auditValues(ref, client, { action: 'webhook_endpoint.secret_rotated', target: input.endpointId });
  const flash = await seal({ kind: 'endpoint.secret_rotated', secret, previousExpiresAt });
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId), changeRecord(session, audit, flash));
  const { me, page, done } = await attempt(acting, () => endpoints.rotateEndpointSecret(acting, ring, input.endpointId, input.expiresInSeconds, newChangeId(), secret));
  return { ...toEndpointPage(me, page), rotated: done !== null };
}

/** Disabled: nothing is delivered to it; enabled: delivered to again, its failures counted afresh. */
export async function setEndpointStatus(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { endpointId: string; status: 'enabled' | 'disabled' },
): Promise<EndpointPage & { changed: boolean }> {
  ref = guard(ref, 'webhooks.status');
  const action = input.status === 'enabled' ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled';
  const flash = await seal({ kind: input.status === 'enabled' ? 'endpoint.enabled' : 'endpoint.disabled' });
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId), changeRecord(session, auditValues(ref, client, { action, target: input.endpointId }), flash));
  const change = input.status === 'enabled' ? endpoints.enableEndpoint : endpoints.disableEndpoint;
  const { me, page, done } = await attempt(acting, () => change(acting, input.endpointId));
  return { ...toEndpointPage(me, page), changed: done !== null };
}

/** Deletes the endpoint (its attempts go with it); whether there was one to delete. */
export async function deleteEndpoint(session: Session, ref: SessionRef, client: Client, seal: Seal, endpointId: string): Promise<WebhooksPage & { deleted: boolean }> {
  ref = guard(ref, 'webhooks.delete');
  const flash = await seal({ kind: 'endpoint.deleted', endpointId });
  const acting = new SignedIn(session, ref, endpointList(session), changeRecord(session, auditValues(ref, client, { action: 'webhook_endpoint.deleted', target: endpointId }), flash));
  const { me, page, refused } = await attempt(acting, () => endpoints.deleteEndpoint(acting, endpointId, newChangeId()));
  return { me, endpoints: page.endpoints.map(toWebhookEndpoint), deleted: refused === null };
}

/**
 * Checks that the endpoint and the event are both the account's and records the resend; the
 * caller then queues it. Also the endpoint's page, to show when it is refused.
 */
export async function prepareResend(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { endpointId: string; eventId: string },
): Promise<EndpointPage & { event: Event | null }> {
  ref = guard(ref, 'webhooks.resend');
  const audit = { ...auditValues(ref, client, { action: 'webhook_delivery.resent', target: `${input.eventId} → ${input.endpointId}` }), ...input };
  const flash = await seal({ kind: 'delivery.resent', eventId: input.eventId });
  const acting = new SignedIn(session, ref, endpointView(session, input.endpointId), { audit: q.auditResend(session, audit), auditId: audit.auditId, flash });
  const { rows } = await acting.run({ event: q.eventOfSession(session, { ...ref, eventId: input.eventId }) });
  return { ...toEndpointPage(acting.me!, acting.page!), event: rows.event[0] ? toEvent(rows.event[0]) : null };
}

// Members, invitations, switching between accounts.

/** An invitation works once, within 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Pending invitations one account may hold: a bound on the mail it can have sent. */
export const MAX_PENDING_INVITATIONS = 20;

export interface MembersPage {
  me: Me;
  members: DashboardMember[];
  invitations: DashboardInvitation[];
}

const memberList = (session: Session) => (check: SessionRef) => ({
  members: q.membersOfSession(session, check),
  invitations: q.invitationsOfSession(session, check),
});

function toMembersPage(me: Me, page: { members: RawRow[]; invitations: RawRow[] }): MembersPage {
  return { me, members: page.members.map(toMember), invitations: page.invitations.map(toInvitation) };
}

export async function membersPage(session: Session, ref: SessionRef): Promise<MembersPage> {
  const { me, page } = await new SignedIn(session, ref, memberList(session)).read();
  return toMembersPage(me, page);
}

/**
 * An invitation of `email` as `role`, unless the address is already a member or the account holds
 * the most pending invitations: its token to e-mail (named after the account's database, so its
 * acceptance goes straight there), or null.
 */
export async function invite(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { database: number; email: string; role: Role },
): Promise<MembersPage & { token: string | null }> {
  ref = guard(ref, 'members.invite');
  const token = newSecretOn(input.database);
  const flash = await seal({ kind: 'member.invited', email: input.email });
  const values = { ...ref, tokenHash: await hashSecret(token), email: input.email, role: input.role, expiresAt: ref.now + INVITATION_TTL_MS, maxPending: MAX_PENDING_INVITATIONS };
  const audit = auditValues(ref, client, { action: 'member.invited', target: `${input.email} as ${input.role}` });
  const acting = new SignedIn(session, ref, memberList(session), changeRecord(session, audit, flash));
  const { rows } = await acting.run({ insert: q.insertInvitation(session, values), stored: q.invitationByHash(session, values) });
  return { ...toMembersPage(acting.me!, acting.page!), token: rows.stored.length > 0 ? token : null };
}

export async function revokeInvitation(session: Session, ref: SessionRef, client: Client, seal: Seal, invitationRef: string): Promise<MembersPage> {
  ref = guard(ref, 'members.revoke_invitation');
  const audit = { ...auditValues(ref, client, { action: 'member.invitation_revoked', target: null }), ref: invitationRef };
  const flash = await seal({ kind: 'invitation.revoked' });
  const acting = new SignedIn(session, ref, memberList(session), { audit: q.auditInvitationRevoked(session, audit), auditId: audit.auditId, flash });
  await acting.run({ revoke: q.revokeInvitation(session, audit) });
  return toMembersPage(acting.me!, acting.page!);
}

/** A member's new role (the last owner keeps theirs): the member afterwards. */
export async function changeMemberRole(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { memberId: number; role: Role },
): Promise<MembersPage & { member: DashboardMember | null }> {
  ref = guard(ref, 'members.role');
  const values = { ...ref, memberId: input.memberId, role: input.role };
  const audit = { ...auditValues(ref, client, { action: 'member.role_changed', target: null }), memberId: input.memberId };
  const flash = await seal({ kind: 'member.role_changed', memberId: input.memberId });
  const acting = new SignedIn(session, ref, memberList(session), { audit: q.auditMember(session, audit), auditId: audit.auditId, flash });
  await acting.run({ change: q.changeRole(session, values) });
  const page = toMembersPage(acting.me!, acting.page!);
  return { ...page, member: page.members.find((m) => m.id === input.memberId) ?? null };
}

/**
 * Removes a member (with `leaving`, the signed-in member themselves) and ends their sessions at
 * once; the last owner stays. Whether they are gone.
 */
export async function removeMember(
  session: Session,
  ref: SessionRef,
  client: Client,
  seal: Seal,
  input: { memberId: number; leaving: boolean },
): Promise<MembersPage & { removed: boolean }> {
  ref = guard(ref, input.leaving ? 'members.leave' : 'members.remove');
  const selfOnly = input.leaving ? 1 : 0;
  const values = { ...ref, memberId: input.memberId, selfOnly };
  const audit = { ...auditValues(ref, client, { action: input.leaving ? 'member.left' : 'member.removed', target: null }), memberId: input.memberId, selfOnly };
  const flash = await seal({ kind: 'member.removed' });
  // The audit row goes first: it names the member from their row, under the removal's own condition.
  const acting = new SignedIn(session, ref, memberList(session), { auditId: audit.auditId, flash });
  await acting.run({
    audit: q.auditMemberRemoval(session, audit),
    remove: q.removeMember(session, values),
    sessions: q.removeMemberSessions(session, values),
    passkeys: q.removeMemberPasskeys(session, values),
  });
  const page = toMembersPage(acting.me!, acting.page!);
  return { ...page, removed: !page.members.some((m) => m.id === input.memberId) };
}

/** Moves the session to another of the person's accounts (same e-mail, same database). */
export async function switchAccount(session: Session, ref: SessionRef, client: Client, memberId: number): Promise<Me> {
  ref = guard(ref, 'account.switch');
  const audit = auditValues(ref, client, { action: 'account.switched_to', target: null });
  // Recorded in the account switched to (the session's account after the switch), naming it.
  const acting = new SignedIn(session, ref, () => ({}));
  await acting.run({
    switch: q.switchMembership(session, { ...ref, memberId }),
    audit: q.auditSwitch(session, audit),
  });
  return acting.me!;
}

export async function membershipsOf(session: Session, ref: SessionRef): Promise<{ me: Me; list: Array<{ memberId: number; role: Role; name: string; accountId: number }> }> {
  const { me, page } = await new SignedIn(session, ref, (check) => ({ list: q.membershipsOfSession(session, check) })).read();
  return { me, list: page.list.map((row) => ({ memberId: row.member_id as number, role: row.role as Role, name: row.name as string, accountId: row.account_id as number })) };
}

/** What an invitation link offers (its page names the account, the role and who invited), or null when it is no longer live. */
export async function invitationOffer(databases: Session[], token: string, now: number): Promise<{ email: string; role: Role; invitedBy: string; name: string } | null> {
  const session = databases[databaseOfSecret(token)];
  if (!session) return null;
  const { offer } = await runBatch(session, { offer: q.invitationOffer(session, { tokenHash: await hashSecret(token), now }) });
  const [row] = offer;
  return row ? { email: row.email as string, role: row.role as Role, invitedBy: row.invited_by as string, name: row.name as string } : null;
}

/**
 * Accepts an invitation: marks it used, makes the member (a person already a member keeps their
 * role), signs them in as that member and records it, in one batch on the database its token
 * names. Before it, the address is claimed in the directory for that database (when it has no
 * entry yet), so the e-mailed sign-in finds the member later: two round trips, as asking for a
 * sign-in link takes. The new session, or null for an invitation that is unknown, used, revoked
 * or expired.
 */
export async function acceptInvitation(databases: Session[], input: { token: string; now: number; client: Client }): Promise<{ sessionId: string; me: Me } | null> {
  const database = databaseOfSecret(input.token);
  const session = databases[database];
  if (!session) return null;
  const sessionId = newSecretOn(database);
  const sid = await hashSecret(sessionId);
  const use: q.InvitationUse = { tokenHash: await hashSecret(input.token), sid, now: input.now, idleUntil: input.now + SESSION_IDLE_MS, expiresAt: input.now + SESSION_ABSOLUTE_MS };
  const ref: SessionRef = { sid, now: input.now, roles: READ, change: 0 };
  const { me } = await runBatch(session, {
    use: q.useInvitation(session, use),
    member: q.memberFromInvitation(session, use),
    ownAccount: q.firstOwnerFromInvitation(session, use),
    session: q.sessionFromInvitation(session, use),
    audit: q.audit(session, auditValues(ref, input.client, { action: 'member.joined', target: null })),
    me: q.sessionAccount(session, ref),
  });
  const found = toMe(me[0]);
  if (!found) return null;
  // The directory names this database for the address (unless it names one already), so the
  // e-mailed sign-in finds the new member: a second round trip, as asking for a link takes.
  await claimEmailOn(databases[0]!, { email: found.email, database, changeId: newChangeId(), now: input.now });
  return { sessionId, me: found };
}

const toMember = rowReader(dashboardMembers);
const toInvitation = rowReader(dashboardInvitations);

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
  ref = guard(ref, 'account.api_version');
  const action = input.upgrade ? 'api_version.upgraded' : 'api_version.rolled_back';
  const acting = new SignedIn(session, ref, accountReads(session), changeRecord(session, auditValues(ref, client, { action, target: `${input.from} → ${input.version}` })));
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
    invitations: q.pruneInvitations(session, { before: now - 24 * 60 * 60 * 1000 }),
    sessions: q.pruneSessions(session, { now }),
    challenges: q.prunePasskeyChallenges(session, { before: now }),
  });
}

// Passkeys (passkeys.ts checks what the browser sends; docs/dashboard.md, "Passkeys").

export interface PasskeysPage {
  me: Me;
  passkeys: DashboardPasskey[];
}

const toPasskey = rowReader(dashboardPasskeys);
const passkeyList = (session: Session) => (check: SessionRef) => ({ passkeys: q.passkeysOfSession(session, check) });
const toPasskeysPage = (me: Me, page: { passkeys: RawRow[] }): PasskeysPage => ({ me, passkeys: page.passkeys.map(toPasskey) });

export async function passkeysPage(session: Session, ref: SessionRef): Promise<PasskeysPage> {
  const { me, page } = await new SignedIn(session, ref, passkeyList(session)).read();
  return toPasskeysPage(me, page);
}

/**
 * A registration's challenge, stored (as its hash) bound to the session, with what the browser's
 * options need: the member, their user handle (naming the database) and the passkeys they hold.
 */
export async function registrationChallenge(session: Session, ref: SessionRef, database: number, challenge: string): Promise<PasskeysPage & { userHandle: string }> {
  ref = guard(ref, 'passkeys.manage');
  const acting = new SignedIn(session, ref, passkeyList(session));
  await acting.run({ challenge: q.insertRegisterChallenge(session, { ...ref, challengeHash: await hashSecret(challenge), expiresAt: ref.now + CHALLENGE_TTL_MS }) });
  return { ...toPasskeysPage(acting.me!, acting.page!), userHandle: userHandle(database, acting.me!.memberId) };
}

/**
 * Stores a verified registration for the signed-in member when its challenge is this session's,
 * unused and live (used up in the same batch), and records it. Whether the passkey is stored.
 */
export async function registerPasskey(session: Session, ref: SessionRef, client: Client, seal: Seal, input: { registration: Registration; name: string }): Promise<PasskeysPage & { registered: boolean }> {
  ref = guard(ref, 'passkeys.manage');
  const { registration } = input;
  const values = {
    ...ref,
    credentialId: registration.credentialId,
    name: input.name,
    publicKey: registration.publicKey,
    signCount: registration.signCount,
    challengeHash: await hashSecret(registration.challenge),
    usedBy: crypto.randomUUID(),
  };
  const audit = { ...auditValues(ref, client, { action: 'passkey.registered', target: null }), credentialId: registration.credentialId, after: 1 };
  const change = { audit: q.auditPasskey(session, audit), auditId: audit.auditId, flash: await seal({ kind: 'passkey.registered', name: input.name }) };
  const acting = new SignedIn(session, ref, passkeyList(session), change);
  await acting.run({
    use: q.useChallenge(session, { challengeHash: values.challengeHash, purpose: 'register', sid: ref.sid, now: ref.now, usedBy: values.usedBy }),
    insert: q.insertPasskey(session, values),
  });
  const page = toPasskeysPage(acting.me!, acting.page!);
  return { ...page, registered: page.passkeys.some((p) => p.id === registration.credentialId) };
}

export async function renamePasskey(session: Session, ref: SessionRef, client: Client, seal: Seal, input: { credentialId: string; name: string }): Promise<PasskeysPage> {
  ref = guard(ref, 'passkeys.manage');
  const audit = { ...auditValues(ref, client, { action: 'passkey.renamed', target: null }), credentialId: input.credentialId, after: 1 };
  const change = { audit: q.auditPasskey(session, audit), auditId: audit.auditId, flash: await seal({ kind: 'passkey.renamed' }) };
  const acting = new SignedIn(session, ref, passkeyList(session), change);
  await acting.run({ rename: q.renamePasskey(session, { ...ref, ...input }) });
  return toPasskeysPage(acting.me!, acting.page!);
}

export async function removePasskey(session: Session, ref: SessionRef, client: Client, seal: Seal, credentialId: string): Promise<PasskeysPage> {
  ref = guard(ref, 'passkeys.manage');
  const audit = { ...auditValues(ref, client, { action: 'passkey.removed', target: null }), credentialId, after: 0 };
  // The audit row goes first: it names the passkey from its row.
  const acting = new SignedIn(session, ref, passkeyList(session), { auditId: audit.auditId, flash: await seal({ kind: 'passkey.removed' }) });
  await acting.run({ audit: q.auditPasskey(session, audit), remove: q.deletePasskey(session, { ...ref, credentialId }) });
  return toPasskeysPage(acting.me!, acting.page!);
}

/** A sign-in's challenge, stored (as its hash) in the first database: no account is known yet. One round trip. */
export async function signInChallenge(databases: Session[], challenge: string, now: number): Promise<void> {
  const session = databases[0]!;
  await runBatch(session, { challenge: q.insertSignInChallenge(session, { challengeHash: await hashSecret(challenge), now, expiresAt: now + CHALLENGE_TTL_MS }) });
}

/**
 * Signs in with a passkey: uses up the challenge (first database), reads the passkey (the database
 * its user handle names; the same round trip when that is the first), checks the signature and
 * counter, then records the use, makes the session (as the first membership of the passkey's
 * member's address, as the e-mailed link does) and records the sign-in in one batch. Two round
 * trips (three when the member's database is not the first): the key must be read before the
 * session may be written. The new session, or null when anything is refused.
 */
export async function passkeySignIn(databases: Session[], input: { assertion: Assertion; now: number; client: Client }): Promise<{ sessionId: string; me: Me } | null> {
  const { assertion, now } = input;
  const database = databaseOfHandle(assertion.userHandle);
  const session = database === null ? undefined : databases[database];
  if (database === null || !session) return null;
  const sessionId = newSecretOn(database);
  const sid = await hashSecret(sessionId);
  const first = databases[0]!;
  const read = { passkey: q.passkeyForSignIn(session, { credentialId: assertion.credentialId }) };
  const use = q.useChallenge(first, { challengeHash: await hashSecret(assertion.challenge), purpose: 'sign_in', sid: null, now, usedBy: sid });
  const found = database === 0 ? await runBatch(first, { use, ...read }) : { ...(await runBatch(first, { use })), ...(await runBatch(session, read)) };
  const used = found.use.length > 0;
  const [row] = found.passkey;
  if (!used || !row) return null;
  try {
    await verifyAssertion(assertion, { publicKey: row.public_key as string, signCount: row.sign_count as number });
  } catch (error) {
    if (error instanceof PasskeyError) return null;
    throw error;
  }
  const values: q.PasskeyUse = { credentialId: assertion.credentialId, memberId: row.member_id as number, signCount: assertion.signCount, sid, now, idleUntil: now + SESSION_IDLE_MS, expiresAt: now + SESSION_ABSOLUTE_MS };
  const ref: SessionRef = { sid, now, roles: READ, change: 0 };
  const { me } = await runBatch(session, {
    use: q.usePasskey(session, values),
    session: q.sessionFromPasskey(session, values),
    audit: q.audit(session, auditValues(ref, input.client, { action: 'signed_in', target: `with passkey "${row.name as string}"` })),
    me: q.sessionAccount(session, ref),
  });
  const signedIn = toMe(me[0]);
  return signedIn ? { sessionId, me: signedIn } : null;
}
