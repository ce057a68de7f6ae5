// Webhook endpoints: create (the secret shown once), list, view, delete, rotate the secret (the new
// one shown once), enable, and an endpoint's delivery attempts. Every route needs a read_write key: endpoints are the account's integration
// settings, and the deliveries list says where its events go.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import { apiKey } from '../auth/bearer.ts';
import { EVENT_TYPES } from '../db/schema.ts';
import { readConfig, type AppEnv } from '../env.ts';
import { strictUtf8JsonBody } from '../http/body.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { cursorQuery, LimitQuery, pageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { noQueryParameters } from '../http/query.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import { validationHook } from '../http/validation.ts';
import { newChangeId } from '../db/receipts.ts';
import {
  CreatedEndpointSchema,
  CreateEndpointBodySchema,
  DeliveryListSchema,
  EndpointIdSchema,
  EndpointListSchema,
  EXAMPLE_DELIVERY,
  EXAMPLE_ENDPOINT,
  RotatedSecretSchema,
  RotateSecretBodySchema,
  toDeliveryForm,
  toEndpointForm,
  WebhookEndpointSchema,
} from './forms.ts';
import { keyRing } from './secret-box.ts';
import { checkWebhookUrl } from './url-rules.ts';
import {
  createEndpoint,
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  deleteEndpoint,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  rotateEndpointSecret,
  viewEndpoint,
} from './workflows.ts';

const routesBase = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const EndpointId = routesBase.openAPIRegistry.registerParameter(
  'WebhookEndpointId',
  EndpointIdSchema().openapi({ param: { name: 'id', in: 'path', description: 'The webhook endpoint id: we_ + 32 hex digits' } }),
);
const IdParams = z.object({ id: EndpointId });
const NOT_FOUND = ['not_found', 'No webhook endpoint with that id'] as const;

const CURSOR = /^[1-9][0-9]{0,15}$/;
// One schema for the three cursors: they differ only in what the document says of them.
const cursorBase = z.string().regex(CURSOR, 'must be a positive integer (a delivery id)').optional();
const cursor = (description: string) => cursorBase.openapi({ description, maxLength: 16 });
const DeliveriesQuery = z.strictObject({ limit: LimitQuery, ...cursorQuery(cursor, 'attempt') });

export const webhookRoutes = routesBase
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description:
        "Events of the caller's scenarios made from now on are POSTed to the URL, signed as Standard Webhooks specifies " +
        '(webhook-id, webhook-timestamp, webhook-signature) with the secret in this reply, the only time it is shown. The URL must ' +
        `be https:// on a public host. At most 10 endpoints per account (409 too_many_endpoints). event_types defaults to all of ${EVENT_TYPES.join(', ')}.`,
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters, strictUtf8JsonBody] as const,
      request: { body: { required: true, content: jsonContent(CreateEndpointBodySchema, { url: EXAMPLE_ENDPOINT.url, description: 'Benefits calculator' }) } },
      responses: documented(() => ({
        201: {
          description: 'Registered; the secret is in this reply only',
          headers: successHeaders('api-key'),
          content: jsonContent(CreatedEndpointSchema, { ...EXAMPLE_ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Ec+RCTlNgA=' }),
        },
        ...problemResponses('api-key', 'forbidden', 'invalid_json', 'validation_failed', 'too_many_endpoints', 'payload_too_large', 'insufficient_storage'),
      })),
    }),
    async (c) => {
      const body = c.req.valid('json');
      // The service's own origins (PUBLIC_ORIGIN, and the one this request reached): a delivery
      // there would be a request to this API. Names it has elsewhere are not known here; a
      // delivery that reaches it carries no credential, never counted as a failed login (admin/src/guard.ts).
      const config = readConfig(c.env);
      const verdict = checkWebhookUrl(body.url, config.webhookAllowLoopback, [config.publicOrigin, new URL(c.req.url).origin]);
      if (!verdict.ok) {
        throw new ApiError('validation_failed', 'The request body has 1 problem; see errors', { errors: [{ path: 'url', message: verdict.reason }] });
      }
      const eventTypes = body.event_types ? EVENT_TYPES.filter((type) => body.event_types?.includes(type)) : [...EVENT_TYPES];
      const ring = await keyRing(c.env.WEBHOOK_SECRET_KEYS);
      const { endpoint, secret } = await createEndpoint(c.get('keyed'), ring, { url: verdict.url, eventTypes, description: body.description ?? null });
      return c.json({ ...toEndpointForm(endpoint), secret }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      description: "The caller's webhook endpoints (at most 10), newest first, without their secrets.",
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters] as const,
      responses: documented(() => ({
        200: { description: 'The endpoints', headers: successHeaders('api-key'), content: jsonContent(EndpointListSchema, { data: [EXAMPLE_ENDPOINT] }) },
        ...problemResponses('api-key', 'forbidden'),
      })),
    }),
    async (c) => {
      const endpoints = await listEndpoints(c.get('keyed'));
      return c.json({ data: endpoints.map(toEndpointForm) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      operationId: 'viewWebhookEndpoint',
      summary: 'View a webhook endpoint',
      description: "One of the caller's endpoints, without its secret; another account's id is 404 like an unknown one.",
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters] as const,
      request: { params: IdParams },
      responses: documented(() => ({
        200: { description: 'The endpoint', headers: successHeaders('api-key'), content: jsonContent(WebhookEndpointSchema, EXAMPLE_ENDPOINT) },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND),
      })),
    }),
    async (c) => {
      const endpoint = await viewEndpoint(c.get('keyed'), c.req.valid('param').id);
      return c.json(toEndpointForm(endpoint), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Removes the endpoint and its delivery attempts. Nothing is delivered to it afterwards, retries included.',
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters] as const,
      request: { params: IdParams },
      responses: documented(() => ({
        204: { description: 'Deleted', headers: successHeaders('api-key') },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND),
      })),
    }),
    async (c) => {
      await deleteEndpoint(c.get('keyed'), c.req.valid('param').id, newChangeId());
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/rotate_secret',
      operationId: 'rotateWebhookSecret',
      summary: "Rotate a webhook endpoint's secret",
      description:
        'A new signing secret, in this reply only. The replaced secret keeps signing beside it for expires_in seconds (default 24 hours; ' +
        '0: it stops at once): until then every delivery carries both signatures (webhook-signature: v1,<new> v1,<old>), so a receiver ' +
        'can switch to the new secret at any time in between. A second rotation drops a previous secret still running.',
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters, strictUtf8JsonBody] as const,
      request: { params: IdParams, body: { required: false, content: jsonContent(RotateSecretBodySchema, { expires_in: 3600 }) } },
      responses: documented(() => ({
        200: {
          description: 'Rotated; the new secret is in this reply only',
          headers: successHeaders('api-key'),
          content: jsonContent(RotatedSecretSchema, {
            ...EXAMPLE_ENDPOINT,
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Ec+RCTlNgA=',
            previous_secret_expires_at: '2026-11-22T08:14:03.512000Z',
          }),
        },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND, 'invalid_json', 'validation_failed', 'payload_too_large'),
      })),
    }),
    async (c) => {
      const expiresIn = c.req.valid('json')?.expires_in ?? DEFAULT_PREVIOUS_SECRET_SECONDS;
      const ring = await keyRing(c.env.WEBHOOK_SECRET_KEYS);
      const rotated = await rotateEndpointSecret(c.get('keyed'), ring, c.req.valid('param').id, expiresIn, newChangeId());
      const previousExpiresAt = rotated.previousExpiresAt === null ? null : formatTimestamp(rotated.previousExpiresAt);
      return c.json({ ...toEndpointForm(rotated.endpoint), secret: rotated.secret, previous_secret_expires_at: previousExpiresAt }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/enable',
      operationId: 'enableWebhookEndpoint',
      summary: 'Enable a webhook endpoint',
      description:
        'Turns a disabled endpoint back on (one is disabled once every delivery attempt has failed for 3 days): events of changes made ' +
        'from now on are delivered to it. Enabling an enabled endpoint changes nothing.',
      tags: ['Webhooks'],
      middleware: [apiKey('write'), noQueryParameters] as const,
      request: { params: IdParams },
      responses: documented(() => ({
        200: { description: 'The endpoint, enabled', headers: successHeaders('api-key'), content: jsonContent(WebhookEndpointSchema, EXAMPLE_ENDPOINT) },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND),
      })),
    }),
    async (c) => {
      const endpoint = await enableEndpoint(c.get('keyed'), c.req.valid('param').id);
      return c.json(toEndpointForm(endpoint), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: "List an endpoint's delivery attempts",
      description:
        'Every attempt to deliver an event to this endpoint, newest first: the event id, the attempt number, the HTTP status ' +
        'or the error, and when. dead_lettered marks the last attempt of a delivery that was given up. Paginated like the ' +
        'scenario list (the cursor is an attempt id). Kept 30 days.',
      tags: ['Webhooks'],
      middleware: [apiKey('write')] as const,
      request: { params: IdParams, query: DeliveriesQuery },
      responses: documented(() => ({
        200: { description: 'A page of attempts', headers: successHeaders('api-key'), content: jsonContent(DeliveryListSchema, { data: [EXAMPLE_DELIVERY], has_more: false }) },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND, 'invalid_query'),
      })),
    }),
    async (c) => {
      const page = pageRequest(c.req.valid('query'), Number);
      const result = await listDeliveries(c.get('keyed'), c.req.valid('param').id, page);
      return c.json({ data: result.rows.map(toDeliveryForm), has_more: result.hasMore }, 200);
    },
  );
