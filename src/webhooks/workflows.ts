// What each webhook endpoint request does with D1, as one batch (one round trip) through the
// request's keyed path (auth/keyed.ts; a read_write key for every route here), statements by name.
// Nothing here knows HTTP.
import type { Keyed } from '../auth/keyed.ts';
import type { EventType } from '../db/schema.ts';
import {
  deleteEndpointOfCaller,
  deliveryPages,
  endpointOfCaller,
  endpointsOfCaller,
  insertEndpoint,
  toWebhookDelivery,
  toWebhookEndpoint,
} from '../db/webhooks.ts';
import { toPage, type PageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { WEBHOOK_ENDPOINTS_PER_ACCOUNT } from './limits.ts';
import { newEndpointId, newWebhookSecret } from './signing.ts';

const notFound = () => new ApiError('not_found', 'No webhook endpoint with that id');

export interface NewEndpoint {
  /** Already checked against the URL rules (url-rules.ts). */
  url: string;
  eventTypes: EventType[];
  description: string | null;
}

/** POST /webhook_endpoints: the endpoint and its secret, unless the account holds the maximum. */
export async function createEndpoint({ session, key, run }: Keyed, input: NewEndpoint) {
  const values = {
    ...key,
    endpointId: newEndpointId(),
    url: input.url,
    eventTypes: JSON.stringify(input.eventTypes),
    description: input.description,
    secret: newWebhookSecret(),
    max: WEBHOOK_ENDPOINTS_PER_ACCOUNT,
  };
  const { rows } = await run({ insert: insertEndpoint(session, values), endpoint: endpointOfCaller(session, values) });
  const [row] = rows.endpoint;
  if (!row) {
    throw new ApiError('too_many_endpoints', `An account can have at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`);
  }
  return toWebhookEndpoint(row);
}

/** GET /webhook_endpoints: all of the caller's (at most 10), newest first. */
export async function listEndpoints({ session, key, run }: Keyed) {
  const { rows } = await run({ endpoints: endpointsOfCaller(session, key) });
  return rows.endpoints.map(toWebhookEndpoint);
}

export async function viewEndpoint({ session, key, run }: Keyed, endpointId: string) {
  const { rows } = await run({ endpoint: endpointOfCaller(session, { ...key, endpointId }) });
  const [row] = rows.endpoint;
  if (!row) throw notFound();
  return toWebhookEndpoint(row);
}

/** DELETE: the endpoint and its attempts; nothing more is delivered to it. */
export async function deleteEndpoint({ session, key, run }: Keyed, endpointId: string): Promise<void> {
  const values = { ...key, endpointId };
  const { rows } = await run({ endpoint: endpointOfCaller(session, values), delete: deleteEndpointOfCaller(session, values) });
  if (rows.endpoint.length === 0) throw notFound();
}

/** A page of an endpoint's delivery attempts, newest first; 404 for an endpoint not the caller's. */
export async function listDeliveries({ session, key, run }: Keyed, endpointId: string, page: PageRequest<number>) {
  const limit = page.limit + 1;
  const cursor = page.endingBefore ?? page.startingAfter;
  const from = page.endingBefore !== undefined ? 'before' : page.startingAfter !== undefined ? 'after' : 'first';
  const values = { ...key, endpointId, limit, ...(cursor === undefined ? {} : { cursor }) };
  const { rows } = await run({ endpoint: endpointOfCaller(session, values), page: deliveryPages[from](session, values) });
  if (rows.endpoint.length === 0) throw notFound();
  return toPage(rows.page.map(toWebhookDelivery), page);
}
