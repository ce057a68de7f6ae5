// Webhook endpoint and delivery statements. The API's statements name their account through the
// request's key (`accountOfKey('write')`: every endpoint route needs a read_write key), so none
// reaches another account's endpoints and none runs for a refused key. The consumer's statements
// (no key) are named by the queue message: the event and the endpoint it goes to.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { accountOfKey, liveKey, type KeyCheck } from './api-keys.ts';
import { eventById, toEvent } from './events.ts';
import { runBatch, runOne } from './execute.ts';
import { changeCommitted, receiptWhere } from './receipts.ts';
import { apiKeys, webhookDeliveries, webhookEndpoints, type Event, type EventType, type WebhookDelivery, type WebhookEndpoint } from './schema.ts';
import { statement, type Session } from './statement.ts';
import { rowReader } from './rows.ts';

const p = sql.placeholder;

export const toWebhookEndpoint = rowReader(webhookEndpoints);

export const toWebhookDelivery = rowReader(webhookDeliveries);

export function eventTypesOf(endpoint: WebhookEndpoint): EventType[] {
  return JSON.parse(endpoint.eventTypes) as EventType[];
}

/**
 * How the caller's statements name its account: the API by the request's key (a live read_write
 * key: `accountOfKey('write')`), the dashboard by its session (dashboard/src/db/statements.ts). Either way no
 * statement reaches another account's endpoints, and none runs for a refused caller.
 */
export interface EndpointOwner {
  /** The caller's account as a scalar sub-select: NULL (matching no row) for a refused caller. */
  account: () => SQL;
  /** A FROM … WHERE yielding one row for an allowed caller, with `accountId` its account column (the insert's). */
  from: () => SQL;
  accountId: () => SQL;
}

/** A new endpoint's columns (webhooks/workflows.ts draws the id and seals the secret). */
export interface NewEndpointFields {
  endpointId: string;
  url: string;
  /** JSON array. */
  eventTypes: string;
  description: string | null;
  /** The secret sealed (src/webhooks/secret-box.ts), and the id of the key that sealed it. */
  secret: string;
  secretKeyId: string;
  /** Endpoints an account may hold. */
  max: number;
}

export interface RotationFields {
  endpointId: string;
  changeId: string;
  /** The new secret, sealed, and its key id. */
  secret: string;
  secretKeyId: string;
  /** When the secret it replaces stops signing; null: at once (it is dropped). */
  previousExpiresAt: number | null;
}

export type PageFrom = 'first' | 'after' | 'before';

/**
 * The statements of an endpoint's caller, for one way of naming its account (`Check`: the values
 * that name it, with the time `now`). Defined twice, at module level: for API keys below, for
 * dashboard sessions in dashboard/src/db/statements.ts; one SQL text of each change for both.
 */
export function endpointStatements<Check extends { now: number }>(owner: EndpointOwner) {
  const ownedBy = () => sql`${webhookEndpoints.accountId} = ${owner.account()}`;
  const callersEndpoint = () => sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy()})`;

  // Keyset pagination on (endpoint_id, id), newest first; only for an endpoint of the caller.
  const deliveriesPage = (from: PageFrom) =>
    statement<Check & { endpointId: string; limit: number; cursor?: number }>(() => {
      const conditions: SQL[] = [sql`${webhookDeliveries.endpointId} = ${p('endpointId')}`, callersEndpoint()];
      if (from === 'after') conditions.push(sql`${webhookDeliveries.id} < ${p('cursor')}`);
      if (from === 'before') conditions.push(sql`${webhookDeliveries.id} > ${p('cursor')}`);
      const order = from === 'before' ? sql`asc` : sql`desc`;
      return sql`select * from ${webhookDeliveries} where ${sql.join(conditions, sql` and `)} order by ${webhookDeliveries.id} ${order} limit ${p('limit')}`;
    });

  return {
    /**
     * Inserted for an allowed caller while its account holds fewer than `max` endpoints. D1 runs
     * one batch at a time, so the count cannot be overtaken by a racing create. The id is drawn per
     * request: run again after it committed (D1 lost the reply), it inserts nothing, and the row
     * read back by that id says the endpoint is there.
     */
    insertEndpoint: statement<Check & NewEndpointFields>(
      () => sql`insert into ${webhookEndpoints} (id, account_id, url, event_types, description, secret, secret_key_id, created_at)
        select ${p('endpointId')}, ${owner.accountId()}, ${p('url')}, ${p('eventTypes')}, ${p('description')}, ${p('secret')}, ${p('secretKeyId')}, ${p('now')}
        ${owner.from()}
          and (select count(*) from ${webhookEndpoints} where ${webhookEndpoints.accountId} = ${owner.accountId()}) < ${p('max')}
        on conflict do nothing`,
    ),

    endpointOfCaller: statement<Check & { endpointId: string }>(
      () => sql`select * from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy()}`,
    ),

    endpointsOfCaller: statement<Check>(() => sql`select * from ${webhookEndpoints} where ${ownedBy()} order by ${webhookEndpoints.seq} desc`),

    /** The receipt of a change to the caller's endpoint, written while the endpoint is there (before a delete). */
    recordEndpointChange: receiptWhere<Check & { endpointId: string }>(callersEndpoint),

    /** Its attempts go with it (foreign key, on delete cascade); queued messages find no endpoint. */
    deleteEndpointOfCaller: statement<Check & { endpointId: string }>(
      () => sql`delete from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy()}`,
    ),

    /**
     * A new secret; the one it replaces becomes the previous secret until `previousExpiresAt` (a
     * previous one still running is dropped: deliveries carry two signatures at most). Skipped when
     * the change's receipt exists: a retry after the commit must not rotate the new secret away.
     */
    rotateSecretOfCaller: statement<Check & RotationFields>(
      () => sql`update ${webhookEndpoints} set
          ${sql.identifier(webhookEndpoints.previousSecret.name)} = case when ${p('previousExpiresAt')} is null then null else ${webhookEndpoints.secret} end,
          ${sql.identifier(webhookEndpoints.previousSecretKeyId.name)} = case when ${p('previousExpiresAt')} is null then null else ${webhookEndpoints.secretKeyId} end,
          ${sql.identifier(webhookEndpoints.previousSecretExpiresAt.name)} = ${p('previousExpiresAt')},
          ${sql.identifier(webhookEndpoints.secret.name)} = ${p('secret')},
          ${sql.identifier(webhookEndpoints.secretKeyId.name)} = ${p('secretKeyId')}
        where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy()} and not ${changeCommitted()}`,
    ),

    /**
     * Enabled: delivered to again, its failures counted afresh. Disabled: nothing is delivered to
     * it. Either is the same change when run twice.
     */
    setStatusOfCaller: statement<Check & { endpointId: string; status: WebhookEndpoint['status'] }>(
      () => sql`update ${webhookEndpoints} set ${sql.identifier(webhookEndpoints.status.name)} = ${p('status')},
          ${sql.identifier(webhookEndpoints.failingSince.name)} = null
        where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy()}`,
    ),

    deliveryPages: { first: deliveriesPage('first'), after: deliveriesPage('after'), before: deliveriesPage('before') },
  };
}

export type EndpointStatements<Check extends { now: number }> = ReturnType<typeof endpointStatements<Check>>;

/** The API's: the account of the request's live read_write key. */
export const keyedEndpoints = endpointStatements<KeyCheck>({
  account: () => accountOfKey('write'),
  from: () => sql`from ${apiKeys} where ${liveKey('write')}`,
  accountId: () => sql`${apiKeys.accountId}`,
});

// The consumer's statements.

const endpointById = statement<{ endpointId: string }>(
  () => sql`select * from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')}`,
);

const deliveredAlready = statement<{ endpointId: string; eventId: string }>(
  () => sql`select 1 as delivered from ${webhookDeliveries}
    where ${webhookDeliveries.endpointId} = ${p('endpointId')} and ${webhookDeliveries.eventId} = ${p('eventId')}
      and ${webhookDeliveries.status} between 200 and 299 limit 1`,
);


/**
 * What one delivery needs, in one round trip: the event (null once pruned), the endpoint (null once
 * deleted) and whether it already answered 2xx to the event.
 */
export async function findDeliveryTarget(
  session: Session,
  endpointId: string,
  eventId: string,
): Promise<{ event: Event | null; endpoint: WebhookEndpoint | null; delivered: boolean }> {
  const rows = await runBatch(session, {
    event: eventById(session, { eventId }),
    endpoint: endpointById(session, { endpointId }),
    delivered: deliveredAlready(session, { endpointId, eventId }),
  });
  const [event] = rows.event;
  const [endpoint] = rows.endpoint;
  return { event: event ? toEvent(event) : null, endpoint: endpoint ? toWebhookEndpoint(endpoint) : null, delivered: rows.delivered.length > 0 };
}

const insertAttempt = statement<AttemptValues>(
  () => sql`insert into ${webhookDeliveries} (endpoint_id, event_id, attempt, status, error, attempt_key, created_at)
    select ${p('endpointId')}, ${p('eventId')},
      coalesce((select max(${webhookDeliveries.attempt}) from ${webhookDeliveries}
        where ${webhookDeliveries.endpointId} = ${p('endpointId')} and ${webhookDeliveries.eventId} = ${p('eventId')}), 0) + 1,
      ${p('status')}, ${p('error')}, ${p('attemptKey')}, ${p('now')}
    where exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')})
    on conflict do nothing`,
);

/**
 * An answered attempt clears the endpoint's failing streak; a failed one starts it, or, when the
 * streak began `disableAfterMs` ago or more, disables the endpoint (every attempt of that long
 * failed). SET reads the row as it was, and running it twice changes nothing more.
 */
const updateHealth = statement<AttemptValues>(
  () => sql`update ${webhookEndpoints} set
      ${sql.identifier(webhookEndpoints.status.name)} = case
        when ${p('answered')} = 0 and ${webhookEndpoints.failingSince} <= ${p('now')} - ${p('disableAfterMs')} then 'disabled'
        else ${webhookEndpoints.status} end,
      ${sql.identifier(webhookEndpoints.failingSince.name)} = case
        when ${p('answered')} = 1 then null else coalesce(${webhookEndpoints.failingSince}, ${p('now')}) end
    where ${webhookEndpoints.id} = ${p('endpointId')}`,
);

export interface AttemptValues {
  endpointId: string;
  eventId: string;
  status: number | null;
  error: string | null;
  /** 1 for a 2xx answer, else 0. */
  answered: 0 | 1;
  /** The queue message's id and attempt number (the same on D1 retries of the same record). */
  attemptKey: string;
  /** How long an endpoint may fail every attempt before it is disabled. */
  disableAfterMs: number;
  now: number;
}

/**
 * Records an attempt, numbered after the earlier ones of the event to the endpoint (none once the
 * endpoint is deleted), and the endpoint's health, in one round trip. Recorded twice under the
 * same attempt key (a retry after D1 lost the reply), it is one row.
 */
export async function recordAttempt(session: Session, attempt: AttemptValues): Promise<void> {
  await runBatch(session, { attempt: insertAttempt(session, attempt), health: updateHealth(session, attempt) });
}

const markLastAttempt = statement<{ endpointId: string; eventId: string }>(
  () => sql`update ${webhookDeliveries} set ${sql.identifier(webhookDeliveries.deadLettered.name)} = 1
    where ${webhookDeliveries.id} = (select max(${webhookDeliveries.id}) from ${webhookDeliveries}
      where ${webhookDeliveries.endpointId} = ${p('endpointId')} and ${webhookDeliveries.eventId} = ${p('eventId')})`,
);

/** The dead-letter queue's consumer: the last attempt of the event to the endpoint was the last. */
export async function markDeadLettered(session: Session, endpointId: string, eventId: string): Promise<void> {
  await runOne(session, markLastAttempt(session, { endpointId, eventId }));
}

const pruneAttempts = statement<{ before: number }>(
  () => sql`delete from ${webhookDeliveries} where ${webhookDeliveries.createdAt} < ${p('before')}`,
);

/** Attempts are kept as long as the events they delivered. */
export async function pruneDeliveries(session: Session, before: number): Promise<void> {
  await runOne(session, pruneAttempts(session, { before }));
}

// Sealing secrets at rest (the hourly cron, src/webhooks/secrets-cron.ts).

/** Endpoints whose secrets are plaintext or sealed under another key than `currentId`. */
const unsealedOrStale = statement<{ currentId: string; limit: number }>(
  () => sql`select ${webhookEndpoints.id} as id, ${webhookEndpoints.secret} as secret, ${webhookEndpoints.secretKeyId} as secret_key_id,
      ${webhookEndpoints.previousSecret} as previous_secret, ${webhookEndpoints.previousSecretKeyId} as previous_secret_key_id
    from ${webhookEndpoints}
    where ${webhookEndpoints.secretKeyId} is null or ${webhookEndpoints.secretKeyId} <> ${p('currentId')}
      or (${webhookEndpoints.previousSecret} is not null
        and (${webhookEndpoints.previousSecretKeyId} is null or ${webhookEndpoints.previousSecretKeyId} <> ${p('currentId')}))
    limit ${p('limit')}`,
);

export interface StoredSecrets {
  id: string;
  secret: string;
  secretKeyId: string | null;
  previousSecret: string | null;
  previousSecretKeyId: string | null;
}

export async function findSecretsToSeal(session: Session, currentId: string, limit: number): Promise<StoredSecrets[]> {
  return (await runOne(session, unsealedOrStale(session, { currentId, limit }))).map((row) => ({
    id: row.id as string,
    secret: row.secret as string,
    secretKeyId: row.secret_key_id as string | null,
    previousSecret: row.previous_secret as string | null,
    previousSecretKeyId: row.previous_secret_key_id as string | null,
  }));
}

/** Writes the secrets sealed anew, unless a rotation changed them since they were read. */
const replaceSecrets = statement<{ id: string; secret: string; secretKeyId: string; previousSecret: string | null; previousSecretKeyId: string | null; oldSecret: string; oldPrevious: string | null }>(
  () => sql`update ${webhookEndpoints} set ${sql.identifier(webhookEndpoints.secret.name)} = ${p('secret')},
      ${sql.identifier(webhookEndpoints.secretKeyId.name)} = ${p('secretKeyId')},
      ${sql.identifier(webhookEndpoints.previousSecret.name)} = ${p('previousSecret')},
      ${sql.identifier(webhookEndpoints.previousSecretKeyId.name)} = ${p('previousSecretKeyId')}
    where ${webhookEndpoints.id} = ${p('id')} and ${webhookEndpoints.secret} = ${p('oldSecret')}
      and ${webhookEndpoints.previousSecret} is ${p('oldPrevious')}`,
);

const dropExpiredPrevious = statement<{ now: number }>(
  () => sql`update ${webhookEndpoints} set ${sql.identifier(webhookEndpoints.previousSecret.name)} = null,
      ${sql.identifier(webhookEndpoints.previousSecretKeyId.name)} = null, ${sql.identifier(webhookEndpoints.previousSecretExpiresAt.name)} = null
    where ${webhookEndpoints.previousSecretExpiresAt} <= ${p('now')}`,
);

/** Stores re-sealed secrets and forgets previous secrets past their expiry, in one round trip. */
export async function storeSealedSecrets(
  session: Session,
  rows: Array<{ before: StoredSecrets; secret: string; secretKeyId: string; previousSecret: string | null; previousSecretKeyId: string | null }>,
  now: number,
): Promise<void> {
  const batch: Record<string, D1PreparedStatement> = { expired: dropExpiredPrevious(session, { now }) };
  for (const { before, ...after } of rows) {
    batch[before.id] = replaceSecrets(session, { id: before.id, ...after, oldSecret: before.secret, oldPrevious: before.previousSecret });
  }
  await runBatch(session, batch);
}
