// GET /events as one batch (one round trip): the key's rows, whether the cursor is one of the
// caller's events, and the page. Nothing here knows HTTP.
import type { Keyed } from '../auth/keyed.ts';
import { eventCursor, eventPages, toEvent } from '../db/events.ts';
import type { EventType } from '../db/schema.ts';
import { toPage, type PageRequest } from '../http/page.ts';
import { ApiError } from '../http/problem.ts';

/** A page of the caller's events, newest first, optionally of one type. */
export async function listEvents({ session, key, run }: Keyed, page: PageRequest<string>, type: EventType | undefined) {
  const limit = page.limit + 1;
  const cursor = page.endingBefore ?? page.startingAfter;
  const from = page.endingBefore !== undefined ? 'before' : page.startingAfter !== undefined ? 'after' : 'first';
  const statement = eventPages[type === undefined ? from : (`${from}OfType` as const)];
  const values = { ...key, limit, ...(cursor === undefined ? {} : { cursor }), ...(type === undefined ? {} : { type }) };
  const { rows } = await run({
    ...(cursor === undefined ? {} : { cursor: eventCursor(session, { ...key, cursor }) }),
    page: statement(session, values),
  });
  if (rows.cursor?.length === 0) {
    // A position can only be known from an event that is still kept and is the caller's.
    const name = page.endingBefore !== undefined ? 'ending_before' : 'starting_after';
    throw new ApiError('invalid_query', 'The cursor is not one of your events (events are kept 30 days)', {
      errors: [{ path: name, message: 'is not the id of one of your events' }],
    });
  }
  return toPage(rows.page.map(toEvent), page);
}
