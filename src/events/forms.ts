// The event form, built in one place: GET /events items and the body of every webhook delivery.
// Thin: the scenario's token and version, never its data.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { EVENT_TYPES, type Event } from '../db/schema.ts';
import { documented } from '../http/openapi.ts';
import { int, TimestampSchema } from '../http/scalars.ts';
import { formatTimestamp } from '../http/timestamps.ts';

export const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/;

export const EventIdSchema = () =>
  z.string().length(36).regex(EVENT_ID_PATTERN).openapi({ description: 'evt_ + 32 hex digits', example: 'evt_5f0c6e1a9b2d4c8e8a7f3b1d2e4c6a80' });

export const EventSchema = documented(() =>
  z
    .strictObject({
      id: EventIdSchema(),
      type: z.enum(EVENT_TYPES).openapi({ example: 'scenario.saved' }),
      created_at: TimestampSchema,
      data: z.strictObject({
        token: z.string().length(15).regex(/^[1-9][0-9]{14}$/).openapi({ example: '482913075561204' }),
        version: int(1, Number.MAX_SAFE_INTEGER).optional().openapi({ description: 'The version the change made; absent for scenario.deleted', example: 3 }),
      }),
    })
    .openapi('Event', { description: 'A change to a scenario. Webhook deliveries POST exactly this object.' }),
);

export type EventForm = z.infer<typeof EventSchema>;

export function toEventForm(event: Pick<Event, 'id' | 'type' | 'token' | 'version' | 'createdAt'>): EventForm {
  return {
    id: event.id,
    type: event.type,
    created_at: formatTimestamp(event.createdAt),
    data: event.version === null ? { token: event.token } : { token: event.token, version: event.version },
  };
}

export const EventListSchema = documented(() =>
  z
    .strictObject({ data: z.array(EventSchema).max(100), has_more: z.boolean() })
    .openapi('EventList'),
);

export const EXAMPLE_EVENT: EventForm = {
  id: 'evt_5f0c6e1a9b2d4c8e8a7f3b1d2e4c6a80',
  type: 'scenario.saved',
  created_at: '2026-11-21T08:14:03.512000Z',
  data: { token: '482913075561204', version: 3 },
};
