// The webhook endpoint and delivery forms, each built in one place, with the zod schemas that
// validate the create body and document the replies.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { EVENT_TYPES, type WebhookDelivery, type WebhookEndpoint } from '../db/schema.ts';
import { eventTypesOf } from '../db/webhooks.ts';
import { EventIdSchema } from '../events/forms.ts';
import { documented } from '../http/openapi.ts';
import { idSchema, int, TimestampSchema } from '../http/scalars.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import { MAX_PREVIOUS_SECRET_SECONDS, WEBHOOK_DESCRIPTION_MAX } from './limits.ts';

export const ENDPOINT_ID_PATTERN = /^we_[0-9a-f]{32}$/;

export const EndpointIdSchema = () =>
  z.string().length(35).regex(ENDPOINT_ID_PATTERN).openapi({ description: 'we_ + 32 hex digits', example: 'we_0d3f5a7c9e1b4d6f8a0c2e4b6d8f0a1c' });

const EventTypes = () =>
  z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).openapi({ example: ['scenario.created', 'scenario.saved', 'scenario.deleted'] });

export const CreateEndpointBodySchema = z
  .strictObject({
    url: z.string().max(2048).openapi({
      format: 'uri',
      description: 'https:// on a public host (no private, loopback or link-local address, in any notation; no credentials)',
      example: 'https://hooks.example.com/scenario-service',
    }),
    event_types: EventTypes().optional().openapi({ description: 'The event types to deliver (default: all three)' }),
    description: z.string().max(WEBHOOK_DESCRIPTION_MAX).optional().openapi({ example: 'Benefits calculator' }),
  })
  .openapi('CreateWebhookEndpoint');

export const WebhookEndpointSchema = documented(() =>
  z
    .strictObject({
      id: EndpointIdSchema(),
      url: z.string().max(2048).openapi({ format: 'uri', example: 'https://hooks.example.com/scenario-service' }),
      event_types: EventTypes(),
      description: z.string().max(WEBHOOK_DESCRIPTION_MAX).nullable().openapi({ example: 'Benefits calculator' }),
      status: z.enum(['enabled', 'disabled']).openapi({
        description: 'disabled once every delivery attempt has failed for 3 days: nothing is delivered until it is enabled again (POST …/enable)',
      }),
      created_at: TimestampSchema,
    })
    .openapi('WebhookEndpoint'),
);

const secretField = (description: string) =>
  z
    .string()
    .length(50)
    .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
    .openapi({ description, example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Ec+RCTlNgA=' });

export const CreatedEndpointSchema = documented(() =>
  z
    .strictObject({
      ...WebhookEndpointSchema.shape,
      secret: secretField('The signing secret (whsec_ + base64 of 32 bytes). Shown only in this reply: keep it.'),
    })
    .openapi('CreatedWebhookEndpoint'),
);

export const RotateSecretBodySchema = z
  .strictObject({
    expires_in: int(0, MAX_PREVIOUS_SECRET_SECONDS)
      .optional()
      .openapi({ description: 'Seconds the replaced secret keeps signing deliveries beside the new one (default 86400, 24 hours; 0: it stops at once)', example: 3600 }),
  })
  .openapi('RotateWebhookSecret');

export const RotatedSecretSchema = documented(() =>
  z
    .strictObject({
      ...WebhookEndpointSchema.shape,
      secret: secretField('The new signing secret. Shown only in this reply: keep it.'),
      previous_secret_expires_at: TimestampSchema.nullable().openapi({
        description: 'Until then every delivery carries two signatures (webhook-signature: v1,<new> v1,<old>); null: the old secret stopped at once',
      }),
    })
    .openapi('RotatedWebhookSecret'),
);

export const EndpointListSchema = documented(() =>
  z.strictObject({ data: z.array(WebhookEndpointSchema).max(100) }).openapi('WebhookEndpointList'),
);

export const DeliverySchema = documented(() =>
  z
    .strictObject({
      id: idSchema().openapi({ description: 'Record id; also the pagination cursor', example: 311 }),
      event_id: EventIdSchema(),
      attempt: int(1, 1000).openapi({ description: '1 for the first attempt of this event to this endpoint', example: 2 }),
      status: int(100, 599).nullable().openapi({ description: "The receiver's HTTP status; null when it gave none (see error)", example: 503 }),
      error: z.string().max(200).nullable().openapi({ description: 'Why there was no status (timeout, network error, refused URL)', example: 'connection failed' }),
      dead_lettered: z.boolean().openapi({ description: 'This was the last attempt: the delivery went to the dead-letter queue' }),
      created_at: TimestampSchema,
    })
    .openapi('WebhookDelivery'),
);

export const DeliveryListSchema = documented(() =>
  z.strictObject({ data: z.array(DeliverySchema).max(100), has_more: z.boolean() }).openapi('WebhookDeliveryList'),
);

export function toEndpointForm(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: eventTypesOf(endpoint),
    description: endpoint.description,
    status: endpoint.status,
    created_at: formatTimestamp(endpoint.createdAt),
  };
}

export function toDeliveryForm(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    attempt: delivery.attempt,
    status: delivery.status,
    error: delivery.error,
    dead_lettered: delivery.deadLettered === 1,
    created_at: formatTimestamp(delivery.createdAt),
  };
}

export const EXAMPLE_ENDPOINT = {
  id: 'we_0d3f5a7c9e1b4d6f8a0c2e4b6d8f0a1c',
  url: 'https://hooks.example.com/scenario-service',
  event_types: ['scenario.created', 'scenario.saved', 'scenario.deleted'],
  description: 'Benefits calculator',
  status: 'enabled' as const,
  created_at: '2026-11-21T08:14:03.512000Z',
};

export const EXAMPLE_DELIVERY = {
  id: 311,
  event_id: 'evt_5f0c6e1a9b2d4c8e8a7f3b1d2e4c6a80',
  attempt: 2,
  status: 200,
  error: null,
  dead_lettered: false,
  created_at: '2026-11-21T08:19:04.102000Z',
};
