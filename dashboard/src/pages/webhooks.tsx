// Webhook endpoints: the list, add (the secret shown once), and each endpoint's page with its
// delivery log, "resend" of one event, rotate the secret (the new one shown once), disable or
// enable, and delete. Every change is the API's own workflow (webhooks/workflows.ts) over the
// session's statements: the same URL rules, sealed secrets, limit and retry-safe writes. A resent
// event goes on the API's webhook queue; the API Worker's consumer delivers it, signed. Each change
// answers 303 to a page, which shows what the change left in the session's flash (a secret, once).
import { Hono, type Context } from 'hono';
import { EVENT_TYPES, type EventType, type WebhookEndpoint } from '../../../src/db/schema.ts';
import { eventTypesOf } from '../../../src/db/webhooks.ts';
import { WEBHOOK_DESCRIPTION_MAX, WEBHOOK_ENDPOINTS_PER_ACCOUNT } from '../../../src/webhooks/limits.ts';
import { checkWebhookUrl } from '../../../src/webhooks/url-rules.ts';
import type { WebhookMessage } from '../../../src/webhooks/queue.ts';
import { keyRing } from '../../../src/webhooks/secret-box.ts';
import type { DashboardEnv } from '../env.ts';
import type { Flash } from '../flash.ts';
import { changed, flashOf, sealer, sessionDatabase, sessionDb, signedInForm, toSignIn } from '../http.ts';
import { formToken } from '../session.ts';
import { may } from '../permissions.ts';
import { BASE, ErrorSummary, Field, Notice, Page, ShownOnce, Table, Time, Token, type Errors } from '../views.tsx';
import {
  createEndpoint,
  deleteEndpoint,
  endpointPage,
  prepareResend,
  rotateSecret,
  sessionRef,
  setEndpointStatus,
  webhooksPage,
  type EndpointPage,
  type WebhooksPage,
} from '../workflows.ts';

/** The rotation's choices of how long the old secret keeps signing beside the new one. */
const OVERLAPS = [
  ['0', 'stops now'],
  ['3600', 'signs 1 more hour'],
  ['86400', 'signs 24 more hours'],
  ['604800', 'signs 7 more days'],
] as const;

interface EndpointForm {
  url: string;
  description: string;
  eventTypes: string[];
}

const ENDPOINT_ID = /^we_[0-9a-f]{32}$/;
const EVENT_ID = /^evt_[0-9a-f]{32}$/;

function EndpointTable({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  if (endpoints.length === 0) return <p>No endpoints yet. Add one below.</p>;
  return (
    <Table label="Webhook endpoints" columns={['URL', 'Events', 'Description', 'Status', 'Created']}>
      {endpoints.map((endpoint) => (
        <tr>
          <td>
            <a href={`${BASE}/webhooks/${endpoint.id}`}>
              <code>{endpoint.url}</code>
            </a>
          </td>
          <td>{eventTypesOf(endpoint).join(', ')}</td>
          <td>{endpoint.description ?? '—'}</td>
          <td class={endpoint.status === 'enabled' ? 'status-active' : 'status-ended'}>{endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}</td>
          <td>
            <Time ms={endpoint.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

function AddEndpointForm({ token, values, errors, full }: { token: string; values: EndpointForm; errors: Errors; full: boolean }) {
  return (
    <section aria-labelledby="add-endpoint">
      <h2 id="add-endpoint">Add an endpoint</h2>
      <ErrorSummary errors={errors} />
      {full ? <p>This account has {WEBHOOK_ENDPOINTS_PER_ACCOUNT} endpoints, the most it can have. Delete one to add another.</p> : null}
      <form method="post" action={`${BASE}/webhooks`} novalidate>
        <Token value={token} />
        <Field name="url" label="URL" type="url" hint="https:// on a public host. Events are POSTed here, signed." value={values.url} error={errors.url} required maxlength={2048} />
        <fieldset id="event_types" aria-describedby={errors.event_types ? 'event_types-error' : undefined}>
          <legend>Events to send</legend>
          {errors.event_types ? (
            <p class="error" id="event_types-error">
              {errors.event_types}
            </p>
          ) : null}
          {EVENT_TYPES.map((type) => (
            <div class="choice">
              <input type="checkbox" id={`type-${type}`} name="event_types" value={type} checked={values.eventTypes.includes(type)} />
              <label for={`type-${type}`}>{type}</label>
            </div>
          ))}
        </fieldset>
        <Field name="description" label="Description (optional)" value={values.description} error={errors.description} maxlength={WEBHOOK_DESCRIPTION_MAX} />
        <button type="submit">Add endpoint</button>
      </form>
    </section>
  );
}

async function renderList(
  c: Context<DashboardEnv>,
  sessionId: string,
  page: WebhooksPage,
  extra: { values?: EndpointForm; errors?: Errors; notice?: string } = {},
  status: 200 | 400 | 404 | 409 = 200,
) {
  const token = await formToken(sessionId);
  const flash = await flashOf(sessionId, page.me.flash);
  const created = flash?.kind === 'endpoint.created' ? { flash, endpoint: page.endpoints.find((e) => e.id === flash.endpointId) } : null;
  return c.html(
    <Page title="Webhooks" me={page.me} token={token} section="webhooks">
      {extra.notice ? <Notice>{extra.notice}</Notice> : null}
      {flash?.kind === 'endpoint.deleted' ? <Notice>{`Deleted the endpoint ${flash.endpointId}.`}</Notice> : null}
      {created ? (
        <ShownOnce id="new-secret" label="The endpoint's signing secret" value={created.flash.secret}>
          <p>
            Events to <code>{created.endpoint?.url ?? ''}</code> are signed with this secret (Standard Webhooks). Copy it now: it is shown only this once.{' '}
            <a href={`${BASE}/webhooks/${created.flash.endpointId}`}>See the endpoint</a>
          </p>
        </ShownOnce>
      ) : null}
      <EndpointTable endpoints={page.endpoints} />
      {may(page.me.role, 'webhooks.create') ? (
        <AddEndpointForm
          token={token}
          values={extra.values ?? { url: '', description: '', eventTypes: [...EVENT_TYPES] }}
          errors={extra.errors ?? {}}
          full={page.endpoints.length >= WEBHOOK_ENDPOINTS_PER_ACCOUNT}
        />
      ) : null}
    </Page>,
    status,
  );
}

/** What a change to one endpoint left to show on its page. */
function EndpointFlash({ flash }: { flash: Flash | null }) {
  if (flash?.kind === 'endpoint.secret_rotated') {
    return (
      <ShownOnce id="new-secret" label="The endpoint's new signing secret" value={flash.secret}>
        <p>
          Copy it now: it is shown only this once.{' '}
          {flash.previousExpiresAt === null ? (
            'The old secret no longer signs.'
          ) : (
            <>
              Until <Time ms={flash.previousExpiresAt} /> deliveries carry a signature with each secret.
            </>
          )}
        </p>
      </ShownOnce>
    );
  }
  if (flash?.kind === 'endpoint.enabled') return <Notice>Enabled: events from now on are delivered to it.</Notice>;
  if (flash?.kind === 'endpoint.disabled') return <Notice>Disabled: nothing is delivered to it until you enable it.</Notice>;
  if (flash?.kind === 'delivery.resent') {
    return <Notice>{`Event ${flash.eventId} is queued for delivery again. Reload this page in a few seconds to see the attempt.`}</Notice>;
  }
  return null;
}

/** The delete's confirmation: what goes, and a button that does it (no script needed). */
async function confirmDelete(c: Context<DashboardEnv>, sessionId: string, page: EndpointPage) {
  const token = await formToken(sessionId);
  const endpoint = page.endpoint;
  if (!endpoint) return renderEndpoint(c, sessionId, page);
  return c.html(
    <Page title="Delete this endpoint?" me={page.me} token={token} section="webhooks">
      <p>
        <code>{endpoint.url}</code> (<code>{endpoint.id}</code>) receives nothing more once deleted, and its delivery log goes with it. This cannot be undone.
      </p>
      <form method="post" action={`${BASE}/webhooks/${endpoint.id}/delete`} class="inline">
        <Token value={token} />
        <button type="submit" class="danger">
          Delete the endpoint
        </button>
        <a href={`${BASE}/webhooks/${endpoint.id}`}>Cancel</a>
      </form>
    </Page>,
  );
}

async function renderEndpoint(
  c: Context<DashboardEnv>,
  sessionId: string,
  page: EndpointPage,
  notice?: string,
  status: 200 | 400 | 404 = 200,
) {
  const token = await formToken(sessionId);
  const endpoint = page.endpoint;
  const flash = await flashOf(sessionId, page.me.flash);
  if (!endpoint) {
    return c.html(
      <Page title="No such endpoint" me={page.me} token={token} section="webhooks">
        <p>
          This account has no such endpoint. <a href={`${BASE}/webhooks`}>All endpoints</a>
        </p>
      </Page>,
      404,
    );
  }
  return c.html(
    <Page title="Webhook endpoint" me={page.me} token={token} section="webhooks">
      {notice ? <Notice>{notice}</Notice> : null}
      <EndpointFlash flash={flash} />
      <p>
        <a href={`${BASE}/webhooks`}>All endpoints</a>
      </p>
      <section aria-labelledby="endpoint-details">
        <h2 id="endpoint-details">Details</h2>
        <dl>
          <dt>URL</dt>
          <dd>
            <code>{endpoint.url}</code>
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          <dt>Events</dt>
          <dd>{eventTypesOf(endpoint).join(', ')}</dd>
          <dt>Description</dt>
          <dd>{endpoint.description ?? '—'}</dd>
          <dt>Status</dt>
          <dd>{endpoint.status === 'enabled' ? 'Enabled: events are delivered to it' : 'Disabled: nothing is delivered to it'}</dd>
          <dt>Created</dt>
          <dd>
            <Time ms={endpoint.createdAt} />
          </dd>
        </dl>
      </section>
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Delivery log</h2>
        {page.deliveries.length === 0 ? (
          <p>No deliveries yet: events of changes made after the endpoint was added are sent to it.</p>
        ) : (
          <Table label="Delivery attempts" columns={['When', 'Event', 'Attempt', 'Result', ...(may(page.me.role, 'webhooks.resend') ? ['Resend'] : [])]}>
            {page.deliveries.map((delivery) => (
              <tr>
                <td>
                  <Time ms={delivery.createdAt} />
                </td>
                <td>
                  <code>{delivery.eventId}</code>
                </td>
                <td>{delivery.attempt}</td>
                <td>
                  {delivery.status !== null ? `HTTP ${delivery.status}` : (delivery.error ?? 'no answer')}
                  {delivery.deadLettered ? ' (given up)' : ''}
                </td>
                {may(page.me.role, 'webhooks.resend') ? (
                  <td>
                    <form method="post" action={`${BASE}/webhooks/${endpoint.id}/resend`} class="inline">
                      <Token value={token} />
                      <input type="hidden" name="event_id" value={delivery.eventId} />
                      <button type="submit" class="secondary" aria-label={`Resend ${delivery.eventId}`}>
                        Resend
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </section>
      {may(page.me.role, 'webhooks.rotate') ? (
        <section aria-labelledby="manage">
          <h2 id="manage">Manage</h2>
          <form method="post" action={`${BASE}/webhooks/${endpoint.id}/rotate`} class="inline">
            <Token value={token} />
            <label for="overlap">The old secret</label>
            <select id="overlap" name="overlap">
              {OVERLAPS.map(([value, text]) => (
                <option value={value} selected={value === '86400'}>
                  {text}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">
              Rotate the secret
            </button>
          </form>
          <form method="post" action={`${BASE}/webhooks/${endpoint.id}/${endpoint.status === 'enabled' ? 'disable' : 'enable'}`} class="inline">
            <Token value={token} />
            <button type="submit" class="secondary">
              {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
            </button>
            <span class="hint">{endpoint.status === 'enabled' ? 'Nothing is delivered to it until it is enabled again.' : 'Events from now on are delivered to it again.'}</span>
          </form>
          <p class="inline">
            <a href={`${BASE}/webhooks/${endpoint.id}/delete`} class="button danger">
              Delete this endpoint…
            </a>
            <span class="hint">It receives nothing more; its delivery log goes with it.</span>
          </p>
        </section>
      ) : null}
    </Page>,
    status,
  );
}

function parseEndpointForm(form: Record<string, string>, formData: URLSearchParams, allowLoopback: boolean, ownOrigin: string) {
  const values: EndpointForm = {
    url: (form.url ?? '').trim(),
    description: (form.description ?? '').trim(),
    eventTypes: formData.getAll('event_types').filter((type): type is EventType => (EVENT_TYPES as readonly string[]).includes(type)),
  };
  const errors: Errors = {};
  let url: string | null = null;
  if (values.url === '') errors.url = 'Enter the URL events are sent to';
  else {
    const verdict = checkWebhookUrl(values.url, allowLoopback, ownOrigin);
    if (verdict.ok) url = verdict.url;
    else errors.url = `The URL ${verdict.reason}`;
  }
  if (values.eventTypes.length === 0) errors.event_types = 'Choose at least one kind of event';
  if (values.description.length > WEBHOOK_DESCRIPTION_MAX) errors.description = `Use at most ${WEBHOOK_DESCRIPTION_MAX} characters for the description`;
  return { values, errors, url };
}

const noEndpoint = (page: WebhooksPage): EndpointPage => ({ me: page.me, endpoint: null, deliveries: [] });

export const webhookRoutes = new Hono<DashboardEnv>()
  .get('/webhooks', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    return renderList(c, sessionId, await webhooksPage(sessionDb(c), await sessionRef(sessionId)));
  })
  .post('/webhooks', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const origin = new URL(c.req.url).origin;
    const { values, errors, url } = parseEndpointForm(checked.form, checked.params, c.get('config').webhookAllowLoopback, origin);
    if (!url || Object.keys(errors).length > 0) return renderList(c, checked.sessionId, await webhooksPage(sessionDb(c), ref), { values, errors }, 400);
    const eventTypes = EVENT_TYPES.filter((type) => values.eventTypes.includes(type));
    const ring = await keyRing(c.env.WEBHOOK_SECRET_KEYS);
    const result = await createEndpoint(sessionDb(c), ref, c.get('client'), ring, sealer(checked.sessionId), { url, eventTypes, description: values.description || null });
    if (!result.created) {
      const errors = { url: result.refused?.message ?? 'The endpoint could not be added. Try again.' };
      return renderList(c, checked.sessionId, result, { values, errors }, 409);
    }
    return changed(c, '/webhooks');
  })
  .get('/webhooks/:id', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const id = c.req.param('id');
    const ref = await sessionRef(sessionId);
    const page = ENDPOINT_ID.test(id) ? await endpointPage(sessionDb(c), ref, id) : noEndpoint(await webhooksPage(sessionDb(c), ref));
    return renderEndpoint(c, sessionId, page);
  })
  .get('/webhooks/:id/delete', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const id = c.req.param('id');
    const ref = await sessionRef(sessionId);
    const page = ENDPOINT_ID.test(id) ? await endpointPage(sessionDb(c), ref, id) : noEndpoint(await webhooksPage(sessionDb(c), ref));
    return confirmDelete(c, sessionId, page);
  })
  .post('/webhooks/:id/rotate', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const endpointId = c.req.param('id');
    if (!ENDPOINT_ID.test(endpointId)) return renderEndpoint(c, checked.sessionId, noEndpoint(await webhooksPage(sessionDb(c), ref)));
    const overlap = OVERLAPS.find(([value]) => value === checked.form.overlap);
    if (!overlap) return renderEndpoint(c, checked.sessionId, await endpointPage(sessionDb(c), ref, endpointId), 'Choose how long the old secret keeps signing.', 400);
    const ring = await keyRing(c.env.WEBHOOK_SECRET_KEYS);
    const result = await rotateSecret(sessionDb(c), ref, c.get('client'), ring, sealer(checked.sessionId), { endpointId, expiresInSeconds: Number(overlap[0]) });
    if (!result.rotated) return renderEndpoint(c, checked.sessionId, result);
    return changed(c, `/webhooks/${endpointId}`);
  })
  .post('/webhooks/:id/:change{disable|enable}', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const endpointId = c.req.param('id');
    if (!ENDPOINT_ID.test(endpointId)) return renderEndpoint(c, checked.sessionId, noEndpoint(await webhooksPage(sessionDb(c), ref)));
    const status = c.req.param('change') === 'enable' ? 'enabled' : 'disabled';
    const result = await setEndpointStatus(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { endpointId, status });
    if (!result.endpoint) return renderEndpoint(c, checked.sessionId, result);
    return changed(c, `/webhooks/${endpointId}`);
  })
  .post('/webhooks/:id/delete', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const id = c.req.param('id');
    const result = ENDPOINT_ID.test(id) ? await deleteEndpoint(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), id) : { ...(await webhooksPage(sessionDb(c), ref)), deleted: false };
    if (!result.deleted) return renderList(c, checked.sessionId, result, { notice: 'There was no such endpoint.' }, 404);
    return changed(c, '/webhooks');
  })
  .post('/webhooks/:id/resend', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const endpointId = c.req.param('id');
    const eventId = checked.form.event_id ?? '';
    if (!ENDPOINT_ID.test(endpointId) || !EVENT_ID.test(eventId)) return renderEndpoint(c, checked.sessionId, noEndpoint(await webhooksPage(sessionDb(c), ref)));
    const page = await prepareResend(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { endpointId, eventId });
    if (!page.endpoint) return renderEndpoint(c, checked.sessionId, page);
    if (!page.event) return renderEndpoint(c, checked.sessionId, page, 'That event is no longer kept (events are kept 30 days), so it cannot be sent again.', 404);
    const message: WebhookMessage = { kind: 'delivery', database: sessionDatabase(c), eventId, endpointId, resend: true };
    await c.env.WEBHOOK_QUEUE.send(message);
    return changed(c, `/webhooks/${endpointId}`);
  });
