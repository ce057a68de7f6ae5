// GET /events: the caller's event log, newest first, with the list pagination and a type filter.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import { apiKey } from '../auth/bearer.ts';
import { EVENT_TYPES } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { cursorQuery, LimitQuery, pageRequest } from '../http/pagination.ts';
import { validationHook } from '../http/validation.ts';
import { EVENT_ID_PATTERN, EventListSchema, EXAMPLE_EVENT, toEventForm } from './forms.ts';
import { listEvents } from './workflows.ts';

// One schema for the three cursors: they differ only in what the document says of them.
const cursorBase = z.string().regex(EVENT_ID_PATTERN, 'must be an event id (evt_ + 32 hex digits)').optional();
const cursor = (description: string) => cursorBase.openapi({ description, maxLength: 36 });

const EventsQuery = z.strictObject({
  limit: LimitQuery,
  ...cursorQuery(cursor, 'event'),
  type: z.enum(EVENT_TYPES).optional().openapi({ description: 'Only events of this type' }),
});

export const eventRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/',
    operationId: 'listEvents',
    summary: 'List events',
    description:
      "Every change to the caller's scenarios (created, saved — restores too — and deleted), newest first, kept 30 days. " +
      "Keyset-paginated by event id: the last item's id as starting_after gives the next page, the first item's id as " +
      'ending_before the previous one. A cursor that is not one of your kept events is 400 invalid_query. Events are thin: ' +
      'the token and version, never scenario data.',
    tags: ['Events'],
    middleware: [apiKey('read')] as const,
    request: { query: EventsQuery },
    responses: documented(() => ({
      200: { description: 'A page of events', headers: successHeaders('api-key'), content: jsonContent(EventListSchema, { data: [EXAMPLE_EVENT], has_more: false }) },
      ...problemResponses('api-key', 'invalid_query'),
    })),
  }),
  async (c) => {
    const query = c.req.valid('query');
    const page = await listEvents(c.get('keyed'), pageRequest(query, String), query.type);
    return c.json({ data: page.rows.map(toEventForm), has_more: page.hasMore }, 200);
  },
);
