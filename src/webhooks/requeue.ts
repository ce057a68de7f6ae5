// The cron's safety net: an event whose change committed but whose queue send never happened (the
// Worker stopped in between, or the send failed) is still unmarked a minute later, and is queued
// here. An event the consumer is merely slow to take may be queued twice: delivery is at least
// once, and an endpoint that already answered 2xx is not sent it again.
import { findUndispatchedEvents } from '../db/events.ts';
import type { Session } from '../db/statement.ts';
import { sendMessages } from './queue.ts';

/** How long after its commit an event is left to its own request's send. */
export const REQUEUE_GRACE_MS = 60_000;
/** Events queued per cron run (the rest wait for the next run, two minutes later). */
const REQUEUE_MAX = 1000;

/**
 * Queues the events of database `database` (its index; `session` is on it) still unmarked
 * `REQUEUE_GRACE_MS` after they were recorded; how many. The cron runs it for every database.
 */
export async function requeueUndispatched(session: Session, queue: Queue, now: number, database = 0): Promise<number> {
  const ids = await findUndispatchedEvents(session, now - REQUEUE_GRACE_MS, REQUEUE_MAX);
  await sendMessages(queue, ids.map((eventId) => ({ kind: 'event', database, eventId })));
  return ids.length;
}
