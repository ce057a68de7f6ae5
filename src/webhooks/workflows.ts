// What each webhook endpoint request does with D1, as one batch (one round trip) through the
// request's keyed path (auth/keyed.ts; a read_write key for every route here), statements by name.
// Nothing here knows HTTP, and the changes are written once for any caller that names its account
// in SQL (db/webhooks.ts `endpointStatements`): the API's key here, the dashboard's session in
// dashboard/src/workflows.ts, so both make, rotate and delete endpoints by the same rules.
//
// Every change is safe to run again after D1 lost the reply of its committed batch (execute.ts
// does exactly that): a create inserts under the endpoint id its request drew, and the row read
// back by that id says it is there; a delete or a rotation writes a receipt under the request's
// change id (db/receipts.ts) that its retry finds, so the answer is the one the first try would
// have given (204, not 404; the secret this request made, not a second rotation).
import type { Batch, BatchRows } from '../db/execute.ts';
import { receiptOf } from '../db/receipts.ts';
import type { EventType } from '../db/schema.ts';
import type { Session } from '../db/statement.ts';
import { keyedEndpoints, toWebhookDelivery, toWebhookEndpoint, type EndpointStatements } from '../db/webhooks.ts';
import { toPage, type PageRequest } from '../http/page.ts';
import { ApiError } from '../http/problem.ts';
import { WEBHOOK_ENDPOINTS_PER_ACCOUNT } from './limits.ts';
import { sealSecret, type KeyRing } from './secret-box.ts';
import { newEndpointId, newWebhookSecret } from './signing.ts';

const notFound = () => new ApiError('not_found', 'No webhook endpoint with that id');

export interface NewEndpoint {
  /** Already checked against the URL rules (url-rules.ts). */
  url: string;
  eventTypes: EventType[];
  description: string | null;
}

/** How long the replaced secret keeps signing when a rotation does not say (24 hours). */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 24 * 60 * 60;

/**
 * Who a change is made for and how its statements run: an API key's keyed path (auth/keyed.ts), or
 * a signed-in dashboard session. `key` holds the values that name the caller in SQL, with `now`;
 * `run` sends the statements as one batch after the caller's own head, and refuses a caller it
 * does not accept by throwing.
 */
export interface Acting<Check extends { now: number }> {
  readonly session: Session;
  readonly key: Check;
  run<B extends Batch & { '#throttle'?: never; '#key'?: never }>(statements: B): Promise<{ rows: BatchRows<B> }>;
}

/** The endpoint workflows over one way of naming the caller's account. */
export function endpointWorkflows<Check extends { now: number }>(s: EndpointStatements<Check>) {
  /**
   * POST /webhook_endpoints: the endpoint and its secret (the only time it is shown; stored sealed),
   * unless the account holds the maximum.
   */
  // `drawn`: the id and secret, drawn by the caller when it must know them before the batch runs
  // (the dashboard seals the secret into the page it shows next, in the same batch).
  async function createEndpoint({ session, key, run }: Acting<Check>, ring: KeyRing, input: NewEndpoint, drawn = { endpointId: newEndpointId(), secret: newWebhookSecret() }) {
    const { endpointId, secret } = drawn;
    const sealed = await sealSecret(ring, endpointId, secret);
    const values = {
      ...key,
      endpointId,
      url: input.url,
      eventTypes: JSON.stringify(input.eventTypes),
      description: input.description,
      secret: sealed.sealed,
      secretKeyId: sealed.keyId,
      max: WEBHOOK_ENDPOINTS_PER_ACCOUNT,
    };
    const { rows } = await run({ insert: s.insertEndpoint(session, values), endpoint: s.endpointOfCaller(session, values) });
    const [row] = rows.endpoint;
    if (!row) {
      throw new ApiError('too_many_endpoints', `An account can have at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`);
    }
    return { endpoint: toWebhookEndpoint(row), secret };
  }

  /** GET /webhook_endpoints: all of the caller's (at most 10), newest first. */
  async function listEndpoints({ session, key, run }: Acting<Check>) {
    const { rows } = await run({ endpoints: s.endpointsOfCaller(session, key) });
    return rows.endpoints.map(toWebhookEndpoint);
  }

  async function viewEndpoint({ session, key, run }: Acting<Check>, endpointId: string) {
    const { rows } = await run({ endpoint: s.endpointOfCaller(session, { ...key, endpointId }) });
    const [row] = rows.endpoint;
    if (!row) throw notFound();
    return toWebhookEndpoint(row);
  }

  /**
   * DELETE: the endpoint and its attempts; nothing more is delivered to it. The receipt, written
   * while the endpoint is still there, tells deleted (by this try or an earlier one) from 404.
   */
  async function deleteEndpoint({ session, key, run }: Acting<Check>, endpointId: string, changeId: string): Promise<void> {
    const values = { ...key, endpointId, changeId };
    const { rows } = await run({
      receipt: s.recordEndpointChange(session, values),
      delete: s.deleteEndpointOfCaller(session, values),
      deleted: receiptOf(session, values),
    });
    if (rows.deleted.length === 0) throw notFound();
  }

  /**
   * POST /webhook_endpoints/{id}/rotate_secret: a new secret (returned, the only time it is shown);
   * the old one keeps signing beside it for `expiresInSeconds` (0: it stops at once).
   */
  async function rotateEndpointSecret({ session, key, run }: Acting<Check>, ring: KeyRing, endpointId: string, expiresInSeconds: number, changeId: string, secret = newWebhookSecret()) {
    const sealed = await sealSecret(ring, endpointId, secret);
    const previousExpiresAt = expiresInSeconds === 0 ? null : key.now + expiresInSeconds * 1000;
    const values = { ...key, endpointId, changeId, secret: sealed.sealed, secretKeyId: sealed.keyId, previousExpiresAt };
    const { rows } = await run({
      rotate: s.rotateSecretOfCaller(session, values),
      receipt: s.recordEndpointChange(session, values),
      endpoint: s.endpointOfCaller(session, values),
    });
    const [row] = rows.endpoint;
    // Deleted since (or never there): whatever this request did, there is nothing to show.
    if (!row) throw notFound();
    // Rotated, now or on an earlier try (the receipt kept a retry from rotating again): the secret
    // this request made, with when the one it replaced stops signing.
    return { endpoint: toWebhookEndpoint(row), secret, previousExpiresAt };
  }

  async function setStatus({ session, key, run }: Acting<Check>, endpointId: string, status: 'enabled' | 'disabled') {
    const values = { ...key, endpointId, status };
    const { rows } = await run({ status: s.setStatusOfCaller(session, values), endpoint: s.endpointOfCaller(session, values) });
    const [row] = rows.endpoint;
    if (!row) throw notFound();
    return toWebhookEndpoint(row);
  }

  /** POST /webhook_endpoints/{id}/enable: delivered to again (events from now on), its failures counted afresh. */
  function enableEndpoint(acting: Acting<Check>, endpointId: string) {
    return setStatus(acting, endpointId, 'enabled');
  }

  /** For the dashboard: nothing is delivered to the endpoint until it is enabled. */
  function disableEndpoint(acting: Acting<Check>, endpointId: string) {
    return setStatus(acting, endpointId, 'disabled');
  }

  /** A page of an endpoint's delivery attempts, newest first; 404 for an endpoint not the caller's. */
  async function listDeliveries({ session, key, run }: Acting<Check>, endpointId: string, page: PageRequest<number>) {
    const limit = page.limit + 1;
    const cursor = page.endingBefore ?? page.startingAfter;
    const from = page.endingBefore !== undefined ? 'before' : page.startingAfter !== undefined ? 'after' : 'first';
    const values = { ...key, endpointId, limit, ...(cursor === undefined ? {} : { cursor }) };
    const { rows } = await run({ endpoint: s.endpointOfCaller(session, values), page: s.deliveryPages[from](session, values) });
    if (rows.endpoint.length === 0) throw notFound();
    return toPage(rows.page.map(toWebhookDelivery), page);
  }

  return { createEndpoint, listEndpoints, viewEndpoint, deleteEndpoint, rotateEndpointSecret, enableEndpoint, disableEndpoint, listDeliveries };
}

/** The API's, through the request's key. */
export const { createEndpoint, listEndpoints, viewEndpoint, deleteEndpoint, rotateEndpointSecret, enableEndpoint, disableEndpoint, listDeliveries } =
  endpointWorkflows(keyedEndpoints);
