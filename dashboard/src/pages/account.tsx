// Events (the account's event log, by type), the account (with its scenario quota, its API version
// and "sign out everywhere"), and the audit log. Each page is one D1 round trip, its session check
// included; an API version change answers with a redirect to the account page.
import { Hono } from 'hono';
import { EVENT_TYPES, type EventType } from '../../../src/db/schema.ts';
import type { DashboardEnv } from '../env.ts';
import { sessionDb, signedInForm, toSignIn } from '../http.ts';
import { formToken } from '../session.ts';
import { BASE, Page, Table, Time, Token } from '../views.tsx';
import { accountPage, API_VERSION_ROLLBACK_MS, auditPage, changeApiVersion, eventsPage, sessionRef, type AccountApiVersion } from '../workflows.ts';
import { knownApiVersion } from '../../../src/api-versions.ts';
import { VERSIONS } from '../../../src/versions/versions.ts';
import { may, type Role } from '../permissions.ts';

const ACTIONS: Record<string, string> = {
  signed_in: 'Signed in',
  signed_out: 'Signed out',
  signed_out_everywhere: 'Signed out everywhere',
  'key.created': 'Created an API key',
  'key.rolled': 'Rolled an API key',
  'key.revoked': 'Revoked an API key',
  'webhook_endpoint.created': 'Added a webhook endpoint',
  'webhook_endpoint.secret_rotated': "Rotated a webhook endpoint's secret",
  'webhook_endpoint.disabled': 'Disabled a webhook endpoint',
  'webhook_endpoint.enabled': 'Enabled a webhook endpoint',
  'webhook_endpoint.deleted': 'Deleted a webhook endpoint',
  'webhook_delivery.resent': 'Resent an event',
  'api_version.upgraded': 'Upgraded the API version',
  'api_version.rolled_back': 'Rolled back the API version',
  'member.invited': 'Invited a member',
  'member.invitation_revoked': 'Revoked an invitation',
  'member.joined': 'Joined the account',
  'member.role_changed': "Changed a member's role",
  'member.removed': 'Removed a member',
  'member.left': 'Left the account',
  'account.switched_to': 'Switched to this account',
};

/**
 * The account's API version: what requests without an API-Version header get, the newer versions
 * with what each changed (an upgrade each), and a rollback to the version it left within 72 hours.
 */
function ApiVersionSection({ version, token, now, role }: { version: AccountApiVersion; token: string; now: number; role: Role }) {
  const newer = VERSIONS.filter((v) => v.version > version.current);
  const changes = may(role, 'account.api_version');
  const rollbackUntil = version.changedAt === null ? null : version.changedAt + API_VERSION_ROLLBACK_MS;
  const canRollBack = version.previous !== null && version.previous < version.current && rollbackUntil !== null && rollbackUntil > now;
  return (
    <section aria-labelledby="api-version">
      <h2 id="api-version">API version</h2>
      <p>
        Requests without an <code>API-Version</code> header get version <strong id="current-api-version">{version.current}</strong>. A request that
        sends the header gets the version it names.
      </p>
      {newer.length === 0 ? <p>This is the newest version.</p> : null}
      {newer.map((v) => (
        <article aria-labelledby={`version-${v.version}`}>
          <h3 id={`version-${v.version}`}>{v.version}</h3>
          <p>{v.summary}</p>
          <ul>
            {v.changes.map((change) => (
              <li>
                <strong>{change.title}.</strong> {change.description}
              </li>
            ))}
          </ul>
          {changes ? (
            <form method="post" action={`${BASE}/account/api_version`}>
              <Token value={token} />
              <input type="hidden" name="api_version" value={v.version} />
              <input type="hidden" name="from" value={version.current} />
              <button type="submit">Upgrade to {v.version}</button>
            </form>
          ) : (
            <p>An owner of the account can upgrade it.</p>
          )}
        </article>
      ))}
      {changes && canRollBack && rollbackUntil !== null ? (
        <form method="post" action={`${BASE}/account/api_version`}>
          <Token value={token} />
          <input type="hidden" name="api_version" value={version.previous ?? ''} />
          <input type="hidden" name="from" value={version.current} />
          <input type="hidden" name="rollback" value="1" />
          <p>
            Upgraded from {version.previous} on <Time ms={version.changedAt ?? 0} />; you may return to it until <Time ms={rollbackUntil} />.
          </p>
          <button type="submit" class="secondary">
            Roll back to {version.previous}
          </button>
        </form>
      ) : null}
      <p>
        <a href="/api_versions">Every version and its changes</a>
      </p>
    </section>
  );
}

/** A `before` cursor from the query: a positive integer, or none. */
const cursor = (text: string | undefined) => (text && /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : null);

export const accountRoutes = new Hono<DashboardEnv>()
  .get('/events', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const typeParam = c.req.query('type') ?? '';
    const type = (EVENT_TYPES as readonly string[]).includes(typeParam) ? (typeParam as EventType) : null;
    const page = await eventsPage(sessionDb(c), await sessionRef(sessionId), { type, before: cursor(c.req.query('before')) });
    const last = page.events.at(-1);
    return c.html(
      <Page title="Events" me={page.me} token={await formToken(sessionId)} section="events">
        <p>Every change to your scenarios, newest first, kept 30 days.</p>
        <form method="get" action={`${BASE}/events`} class="inline">
          <label for="type">Type</label>
          <select id="type" name="type">
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option value={t} selected={t === type}>
                {t}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary">
            Show
          </button>
        </form>
        {page.events.length === 0 ? (
          <p>No events{type ? ` of type ${type}` : ''}.</p>
        ) : (
          <Table label="Events" columns={['When', 'Type', 'Scenario', 'Version', 'Event id']}>
            {page.events.map((event) => (
              <tr>
                <td>
                  <Time ms={event.createdAt} />
                </td>
                <td>{event.type}</td>
                <td>
                  <code>{event.token}</code>
                </td>
                <td>{event.version ?? '—'}</td>
                <td>
                  <code>{event.id}</code>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {page.more && last ? (
          <p>
            <a href={`${BASE}/events?${new URLSearchParams({ ...(type ? { type } : {}), before: String(last.seq) })}`}>Older events</a>
          </p>
        ) : null}
      </Page>,
    );
  })
  .get('/account', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const page = await accountPage(sessionDb(c), await sessionRef(sessionId));
    const token = await formToken(sessionId);
    const max = c.get('config').accountMaxScenarios;
    return c.html(
      <Page title="Account" me={page.me} token={token} section="account">
        <section aria-labelledby="details">
          <h2 id="details">Details</h2>
          <dl>
            <dt>Name</dt>
            <dd>{page.me.name}</dd>
            <dt>E-mail</dt>
            <dd>{page.me.email}</dd>
            <dt>Account since</dt>
            <dd>
              <Time ms={page.me.accountCreatedAt} />
            </dd>
          </dl>
        </section>
        <section aria-labelledby="storage">
          <h2 id="storage">Storage</h2>
          <p id="quota">
            {page.scenarios.toLocaleString('en-US')} of {max.toLocaleString('en-US')} scenarios stored ({((page.scenarios / max) * 100).toFixed(1)} %).
          </p>
          <meter min={0} max={max} value={page.scenarios} aria-labelledby="quota"></meter>
        </section>
        <ApiVersionSection version={page.apiVersion} token={token} now={Date.now()} role={page.me.role} />
        <section aria-labelledby="sessions">
          <h2 id="sessions">Sessions</h2>
          <p>
            Signed in here since <Time ms={page.me.signedInAt} />; {page.sessions} {page.sessions === 1 ? 'session' : 'sessions'} in all. A session ends
            after 7 days unused, and 30 days after sign-in.
          </p>
          <form method="post" action={`${BASE}/sign-out-everywhere`}>
            <Token value={token} />
            <button type="submit" class="danger">
              Sign out everywhere
            </button>
          </form>
        </section>
      </Page>,
    );
  })
  // An upgrade or a rollback of the API version, then back to the account page (a reload repeats nothing).
  .post('/account/api_version', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const version = knownApiVersion(checked.form.api_version);
    const from = knownApiVersion(checked.form.from);
    if (version && from) {
      const ref = await sessionRef(checked.sessionId);
      await changeApiVersion(sessionDb(c), ref, c.get('client'), { version, from, upgrade: checked.form.rollback !== '1' });
    }
    return c.redirect(`${BASE}/account#api-version`, 303);
  })
  .get('/audit', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const page = await auditPage(sessionDb(c), await sessionRef(sessionId), cursor(c.req.query('before')));
    const last = page.entries.at(-1);
    return c.html(
      <Page title="Audit log" me={page.me} token={await formToken(sessionId)} section="audit">
        <p>Every sign-in and every change made in this dashboard, newest first, kept 1 year.</p>
        <Table label="Audit log" columns={['When', 'Who', 'What', 'Details', 'Client address', 'Browser']}>
          {page.entries.map((entry) => (
            <tr>
              <td>
                <Time ms={entry.createdAt} />
              </td>
              <td>{entry.actor}</td>
              <td>{ACTIONS[entry.action] ?? entry.action}</td>
              <td>{entry.target ?? '—'}</td>
              <td>{entry.address ?? '—'}</td>
              <td>{entry.userAgent ?? '—'}</td>
            </tr>
          ))}
        </Table>
        {page.more && last ? (
          <p>
            <a href={`${BASE}/audit?before=${last.seq}`}>Older entries</a>
          </p>
        ) : null}
      </Page>,
    );
  });
