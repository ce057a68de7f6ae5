// Event statements: the caller's event log (GET /events), and what webhook dispatch reads and marks.
// The events themselves are written by the scenario changes they record (db/scenarios.ts).
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { accountOfKey, type KeyCheck } from './api-keys.ts';
import { runBatch, runOne } from './execute.ts';
import { events, webhookEndpoints, type Event, type EventType } from './schema.ts';
import { statement, type Session } from './statement.ts';
import { rowReader } from './rows.ts';

const p = sql.placeholder;

export const toEvent = rowReader(events);

const ofCaller = sql`${events.accountId} = ${accountOfKey('read')}`;

/** The seq of the caller's event `cursor` (no row for an unknown, pruned or foreign id). */
const cursorSeq = sql`(select ${events.seq} from ${events} where ${events.id} = ${p('cursor')} and ${ofCaller})`;

export const eventCursor = statement<KeyCheck & { cursor: string }>(
  () => sql`select ${events.seq} as seq from ${events} where ${events.id} = ${p('cursor')} and ${ofCaller}`,
);

export type PageFrom = 'first' | 'after' | 'before';

// Keyset pagination on (account_id, seq), or (account_id, type, seq) with a type filter: each page
// costs the same however many events the account has, or however rare the type.
function page(from: PageFrom, typed: boolean) {
  return statement<KeyCheck & { limit: number; cursor?: string; type?: EventType }>(() => {
    const conditions: SQL[] = [ofCaller];
    if (typed) conditions.push(sql`${events.type} = ${p('type')}`);
    if (from === 'after') conditions.push(sql`${events.seq} < ${cursorSeq}`);
    if (from === 'before') conditions.push(sql`${events.seq} > ${cursorSeq}`);
    const order = from === 'before' ? sql`asc` : sql`desc`;
    return sql`select * from ${events} where ${sql.join(conditions, sql` and `)} order by ${events.seq} ${order} limit ${p('limit')}`;
  });
}

export const eventPages = {
  first: page('first', false),
  after: page('after', false),
  before: page('before', false),
  firstOfType: page('first', true),
  afterOfType: page('after', true),
  beforeOfType: page('before', true),
} as const;

// Dispatch (the queue consumer, no key: the event names its account).

export const eventById = statement<{ eventId: string }>(() => sql`select * from ${events} where ${events.id} = ${p('eventId')}`);

/**
 * The endpoints an event goes to: its account's, enabled, subscribed to its type, and created
 * before it (an endpoint receives the changes made after it was registered).
 */
export const subscribedEndpoints = statement<{ eventId: string }>(
  () => sql`select ${webhookEndpoints.id} as id from ${webhookEndpoints} inner join ${events} on ${events.id} = ${p('eventId')}
    where ${webhookEndpoints.accountId} = ${events.accountId} and ${webhookEndpoints.createdAt} <= ${events.createdAt}
      and ${webhookEndpoints.status} = 'enabled'
      and exists (select 1 from json_each(${webhookEndpoints.eventTypes}) where value = ${events.type})
    order by ${webhookEndpoints.seq}`,
);

/** The consumer has the event: the cron need not queue it. */
export const markDispatched = statement<{ eventId: string; now: number }>(
  () => sql`update ${events} set ${sql.identifier(events.dispatchedAt.name)} = ${p('now')}
    where ${events.id} = ${p('eventId')} and ${events.dispatchedAt} is null`,
);

/** Reads the event and its endpoints and marks it taken, in one round trip. */
export async function dispatchEvent(session: Session, eventId: string, now: number): Promise<{ event: Event | null; endpointIds: string[] }> {
  const rows = await runBatch(session, {
    event: eventById(session, { eventId }),
    endpoints: subscribedEndpoints(session, { eventId }),
    dispatched: markDispatched(session, { eventId, now }),
  });
  const event = rows.event[0];
  return { event: event ? toEvent(event) : null, endpointIds: rows.endpoints.map((row) => row.id as string) };
}

const undispatched = statement<{ before: number; limit: number }>(
  () => sql`select ${events.id} as id from ${events} where ${events.dispatchedAt} is null and ${events.createdAt} < ${p('before')}
    order by ${events.createdAt} limit ${p('limit')}`,
);

/** Ids of events recorded before `before` that no consumer has taken yet, oldest first. */
export async function findUndispatchedEvents(session: Session, before: number, limit: number): Promise<string[]> {
  return (await runOne(session, undispatched(session, { before, limit }))).map((row) => row.id as string);
}
