// Webhook endpoint and delivery statements. The API's statements name their account through the
// request's key (`accountOfKey('write')`: every endpoint route needs a read_write key), so none
// reaches another account's endpoints and none runs for a refused key. The consumer's statements
// (no key) are named by the queue message: the event and the endpoint it goes to.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { accountOfKey, liveKey, type KeyCheck } from './api-keys.ts';
import { eventById, toEvent } from './events.ts';
import { runBatch, runOne } from './execute.ts';
import { apiKeys, webhookDeliveries, webhookEndpoints, type Event, type EventType, type WebhookDelivery, type WebhookEndpoint } from './schema.ts';
import { statement, type RawRow, type Session } from './statement.ts';

const p = sql.placeholder;

export function toWebhookEndpoint(row: RawRow): WebhookEndpoint {
  return {
    seq: row.seq as number,
    id: row.id as string,
    accountId: row.account_id as number,
    url: row.url as string,
    eventTypes: row.event_types as string,
    description: row.description as string | null,
    secret: row.secret as string,
    createdAt: row.created_at as number,
  };
}

export function toWebhookDelivery(row: RawRow): WebhookDelivery {
  return {
    id: row.id as number,
    endpointId: row.endpoint_id as string,
    eventId: row.event_id as string,
    attempt: row.attempt as number,
    status: row.status as number | null,
    error: row.error as string | null,
    deadLettered: row.dead_lettered as number,
    createdAt: row.created_at as number,
  };
}

export function eventTypesOf(endpoint: WebhookEndpoint): EventType[] {
  return JSON.parse(endpoint.eventTypes) as EventType[];
}

const ownedBy = sql`${webhookEndpoints.accountId} = ${accountOfKey('write')}`;

export interface NewEndpointValues extends KeyCheck {
  endpointId: string;
  url: string;
  /** JSON array. */
  eventTypes: string;
  description: string | null;
  secret: string;
  /** Endpoints an account may hold. */
  max: number;
}

/**
 * Inserted for a live read_write key while its account holds fewer than `max` endpoints. D1 runs
 * one batch at a time, so the count cannot be overtaken by a racing create.
 */
export const insertEndpoint = statement<NewEndpointValues>(
  () => sql`insert into ${webhookEndpoints} (id, account_id, url, event_types, description, secret, created_at)
    select ${p('endpointId')}, ${apiKeys.accountId}, ${p('url')}, ${p('eventTypes')}, ${p('description')}, ${p('secret')}, ${p('now')}
    from ${apiKeys} where ${liveKey('write')}
      and (select count(*) from ${webhookEndpoints} where ${webhookEndpoints.accountId} = ${apiKeys.accountId}) < ${p('max')}`,
);

export const endpointOfCaller = statement<KeyCheck & { endpointId: string }>(
  () => sql`select * from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy}`,
);

export const endpointsOfCaller = statement<KeyCheck>(
  () => sql`select * from ${webhookEndpoints} where ${ownedBy} order by ${webhookEndpoints.seq} desc`,
);

/** Its attempts go with it (foreign key, on delete cascade); queued messages find no endpoint. */
export const deleteEndpointOfCaller = statement<KeyCheck & { endpointId: string }>(
  () => sql`delete from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy}`,
);

export type PageFrom = 'first' | 'after' | 'before';

// Keyset pagination on (endpoint_id, id), newest first; only for an endpoint of the caller.
function deliveriesPage(from: PageFrom) {
  return statement<KeyCheck & { endpointId: string; limit: number; cursor?: number }>(() => {
    const conditions: SQL[] = [
      sql`${webhookDeliveries.endpointId} = ${p('endpointId')}`,
      sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${ownedBy})`,
    ];
    if (from === 'after') conditions.push(sql`${webhookDeliveries.id} < ${p('cursor')}`);
    if (from === 'before') conditions.push(sql`${webhookDeliveries.id} > ${p('cursor')}`);
    const order = from === 'before' ? sql`asc` : sql`desc`;
    return sql`select * from ${webhookDeliveries} where ${sql.join(conditions, sql` and `)} order by ${webhookDeliveries.id} ${order} limit ${p('limit')}`;
  });
}

export const deliveryPages = { first: deliveriesPage('first'), after: deliveriesPage('after'), before: deliveriesPage('before') } as const;

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

const insertAttempt = statement<{ endpointId: string; eventId: string; status: number | null; error: string | null; now: number }>(
  () => sql`insert into ${webhookDeliveries} (endpoint_id, event_id, attempt, status, error, created_at)
    select ${p('endpointId')}, ${p('eventId')},
      coalesce((select max(${webhookDeliveries.attempt}) from ${webhookDeliveries}
        where ${webhookDeliveries.endpointId} = ${p('endpointId')} and ${webhookDeliveries.eventId} = ${p('eventId')}), 0) + 1,
      ${p('status')}, ${p('error')}, ${p('now')}
    where exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')})`,
);

/** Records an attempt, numbered after the earlier ones of the event to the endpoint (none once the endpoint is deleted). */
export async function recordAttempt(
  session: Session,
  attempt: { endpointId: string; eventId: string; status: number | null; error: string | null; now: number },
): Promise<void> {
  await runOne(session, insertAttempt(session, attempt));
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
