// What each webhook endpoint request does with D1, as one batch (one round trip) on the session it
// is given: the key's rows and the statements it guards (a read_write key for every route here).
// Nothing here knows HTTP.
import type { Caller } from '../auth/key-check.ts';
import { withKey } from '../auth/with-key.ts';
import type { KeyCheck } from '../db/api-keys.ts';
import type { EventType } from '../db/schema.ts';
import type { Session } from '../db/statement.ts';
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

const notFound = (caller: Caller) => new ApiError('not_found', 'No webhook endpoint with that id', { caller });

export interface NewEndpoint {
  /** Already checked against the URL rules (url-rules.ts). */
  url: string;
  eventTypes: EventType[];
  description: string | null;
}

/** POST /webhook_endpoints: the endpoint and its secret, unless the account holds the maximum. */
export async function createEndpoint(session: Session, key: KeyCheck, input: NewEndpoint) {
  const values = {
    ...key,
    endpointId: newEndpointId(),
    url: input.url,
    eventTypes: JSON.stringify(input.eventTypes),
    description: input.description,
    secret: newWebhookSecret(),
    max: WEBHOOK_ENDPOINTS_PER_ACCOUNT,
  };
  const { caller, results } = await withKey(session, key, 'write', [insertEndpoint(session, values), endpointOfCaller(session, values)]);
  const row = results[1]?.[0];
  if (!row) {
    throw new ApiError('too_many_endpoints', `An account can have at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`, { caller });
  }
  return { caller, endpoint: toWebhookEndpoint(row) };
}

/** GET /webhook_endpoints: all of the caller's (at most 10), newest first. */
export async function listEndpoints(session: Session, key: KeyCheck) {
  const { caller, results } = await withKey(session, key, 'write', [endpointsOfCaller(session, key)]);
  return { caller, endpoints: (results[0] ?? []).map(toWebhookEndpoint) };
}

export async function viewEndpoint(session: Session, key: KeyCheck, endpointId: string) {
  const { caller, results } = await withKey(session, key, 'write', [endpointOfCaller(session, { ...key, endpointId })]);
  const row = results[0]?.[0];
  if (!row) throw notFound(caller);
  return { caller, endpoint: toWebhookEndpoint(row) };
}

/** DELETE: the endpoint and its attempts; nothing more is delivered to it. */
export async function deleteEndpoint(session: Session, key: KeyCheck, endpointId: string): Promise<Caller> {
  const values = { ...key, endpointId };
  const { caller, results } = await withKey(session, key, 'write', [endpointOfCaller(session, values), deleteEndpointOfCaller(session, values)]);
  if (!results[0]?.[0]) throw notFound(caller);
  return caller;
}

/** A page of an endpoint's delivery attempts, newest first; 404 for an endpoint not the caller's. */
export async function listDeliveries(session: Session, key: KeyCheck, endpointId: string, page: PageRequest<number>) {
  const limit = page.limit + 1;
  const cursor = page.endingBefore ?? page.startingAfter;
  const from = page.endingBefore !== undefined ? 'before' : page.startingAfter !== undefined ? 'after' : 'first';
  const values = { ...key, endpointId, limit, ...(cursor === undefined ? {} : { cursor }) };
  const { caller, results } = await withKey(session, key, 'write', [endpointOfCaller(session, values), deliveryPages[from](session, values)]);
  if (!results[0]?.[0]) throw notFound(caller);
  return { caller, ...toPage((results[1] ?? []).map(toWebhookDelivery), page) };
}
