// API keys: the table, create (the full key shown once), roll (a new key; the old one expires
// after a grace) and revoke (after a confirmation page). Each change is the API's from its next
// request: the API reads the same rows. Each answers 303 to the keys page, which shows what the
// change left in the session's flash (the new key, once) from the rows it reads itself.
import { Hono, type Context } from 'hono';
import type { ApiKey } from '../../../src/db/schema.ts';
import type { DashboardEnv } from '../env.ts';
import type { Flash } from '../flash.ts';
import { changed, flashOf, sealer, sessionDatabase, sessionDb, signedInForm, toSignIn } from '../http.ts';
import { formToken } from '../session.ts';
import { BASE, ErrorSummary, Field, Notice, Page, ShownOnce, Table, Time, Token, type Errors } from '../views.tsx';
import { may, type Role } from '../permissions.ts';
import { createKey, keysPage, revokeKey, rollKey, sessionRef, type KeyRow, type KeysPage } from '../workflows.ts';

const KEY_NAME_MAX = 100;
/** The roll's choices of grace for the old key. */
const GRACES = [
  ['0', 'now'],
  ['3600', 'in 1 hour'],
  ['86400', 'in 24 hours'],
  ['604800', 'in 7 days'],
] as const;

interface KeyForm {
  name: string;
  scope: string;
  expires: string;
}

function status(key: ApiKey, now: number): { text: string; active: boolean } {
  if (key.revokedAt !== null) return { text: 'Revoked', active: false };
  if (key.expiresAt !== null && key.expiresAt <= now) return { text: 'Expired', active: false };
  return { text: 'Active', active: true };
}

/** A key as the dashboard names it everywhere (the audit log too: db/statements.ts `keyLabel`): its prefix and last four. */
const keyText = (key: ApiKey) => `${key.prefix}…${key.lastFour ?? ''}`;
const keyLabel = (key: ApiKey) => `${key.name ?? 'unnamed key'} (${keyText(key)})`;

/** The key a full key is, among the page's rows (by its prefix and last four). */
const rowOf = (keys: ApiKey[], full: string) => keys.find((key) => full.startsWith(key.prefix) && full.endsWith(key.lastFour ?? ''));

/** What a change's flash shows, from the rows the page read after it (so the words are the rows' truth). */
function FlashView({ flash, keys, now }: { flash: Flash | null; keys: ApiKey[]; now: number }) {
  if (flash?.kind === 'key.created') {
    const row = rowOf(keys, flash.key);
    return (
      <ShownOnce id="new-key" label={`Your new key “${row?.name ?? ''}”`} value={flash.key}>
        <p>Copy it now: it is shown only this once, and only its hash is stored.</p>
      </ShownOnce>
    );
  }
  if (flash?.kind === 'key.rolled') {
    const row = rowOf(keys, flash.key);
    const old = keys.find((key) => key.id === flash.from);
    const stops = old?.expiresAt ?? null;
    return (
      <ShownOnce id="new-key" label={`The new key for “${row?.name ?? ''}”`} value={flash.key}>
        <p>
          Copy it now: it is shown only this once. It does not expire.{' '}
          {stops === null || stops <= now ? (
            'The old key no longer works.'
          ) : (
            <>
              The old key ({old ? keyText(old) : ''}) stops working at <Time ms={stops} />.
            </>
          )}
        </p>
      </ShownOnce>
    );
  }
  if (flash?.kind === 'key.revoked') {
    const old = keys.find((key) => key.id === flash.keyId);
    return <Notice>{`Key ${old ? keyLabel(old) : ''} is revoked: the API refuses it from now on.`}</Notice>;
  }
  return null;
}

function KeyTable({ keys, token, now, role }: { keys: KeyRow[]; token: string; now: number; role: Role }) {
  if (keys.length === 0) return <p>No keys yet.{may(role, 'keys.create') ? ' Create one below.' : ''}</p>;
  const manage = may(role, 'keys.roll');
  return (
    <Table label="API keys" caption="Your API keys" columns={['Name', 'Key', 'Scope', 'Created', 'Created by', 'Last used', 'Expires', 'Status', ...(manage ? ['Actions'] : [])]}>
      {keys.map((key) => {
        const state = status(key, now);
        const label = key.name ?? `key ${key.id}`;
        return (
          <tr>
            <td class="token">{key.name ?? '—'}</td>
            <td class="token">
              <code>{keyText(key)}</code>
            </td>
            <td>{key.scope === 'read' ? 'read' : 'read & write'}</td>
            <td>
              <Time ms={key.createdAt} />
            </td>
            <td class="token">{key.createdBy ?? 'admin API'}</td>
            <td>
              <Time ms={key.lastUsedAt} empty="never" />
            </td>
            <td>
              <Time ms={key.expiresAt} empty="never" />
            </td>
            <td class={state.active ? 'status-active' : 'status-ended'}>{state.text}</td>
            {manage ? (
              <td>
                {state.active ? (
                  <>
                    <form method="post" action={`${BASE}/keys/${key.id}/roll`} class="inline">
                      <Token value={token} />
                      <label for={`grace-${key.id}`}>Old key stops</label>
                      <select id={`grace-${key.id}`} name="grace">
                        {GRACES.map(([value, text]) => (
                          <option value={value} selected={value === '86400'}>
                            {text}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="secondary" aria-label={`Roll ${label}`}>
                        Roll
                      </button>
                    </form>
                    <a href={`${BASE}/keys/${key.id}/revoke`} class="button danger" aria-label={`Revoke ${label}…`}>
                      Revoke…
                    </a>
                  </>
                ) : null}
              </td>
            ) : null}
          </tr>
        );
      })}
    </Table>
  );
}

function CreateKeyForm({ token, values, errors }: { token: string; values: KeyForm; errors: Errors }) {
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <ErrorSummary errors={errors} />
      <form method="post" action={`${BASE}/keys`} novalidate>
        <Token value={token} />
        <Field name="name" label="Name" hint="To tell your keys apart, e.g. ci or laptop" value={values.name} error={errors.name} required maxlength={KEY_NAME_MAX} />
        <fieldset>
          <legend>Scope</legend>
          <div class="choice">
            <input type="radio" id="scope-read_write" name="scope" value="read_write" checked={values.scope !== 'read'} />
            <label for="scope-read_write">Read and write (everything)</label>
          </div>
          <div class="choice">
            <input type="radio" id="scope-read" name="scope" value="read" checked={values.scope === 'read'} />
            <label for="scope-read">Read only (GET requests)</label>
          </div>
        </fieldset>
        <Field name="expires" label="Expires on (optional)" type="date" hint="The key stops working at the start of this day (UTC). Empty: it never expires." value={values.expires} error={errors.expires} />
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}

async function render(
  c: Context<DashboardEnv>,
  sessionId: string,
  page: KeysPage,
  extra: { values?: KeyForm; errors?: Errors; notice?: string } = {},
  status: 200 | 400 | 404 | 409 = 200,
) {
  const token = await formToken(sessionId);
  const now = Date.now();
  const flash = await flashOf(sessionId, page.me.flash);
  return c.html(
    <Page title="API keys" me={page.me} token={token} section="keys">
      {extra.notice ? <Notice>{extra.notice}</Notice> : null}
      <FlashView flash={flash} keys={page.keys} now={now} />
      <p>
        Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Changes here apply to the API from its next request.
      </p>
      <KeyTable keys={page.keys} token={token} now={now} role={page.me.role} />
      {may(page.me.role, 'keys.create') ? (
        <CreateKeyForm token={token} values={extra.values ?? { name: '', scope: 'read_write', expires: '' }} errors={extra.errors ?? {}} />
      ) : (
        <p>As a {page.me.role} you see the keys; an owner or a developer makes and changes them.</p>
      )}
    </Page>,
    status,
  );
}

/** The revoke's confirmation: what goes, and a button that does it (no script needed). */
async function confirmRevoke(c: Context<DashboardEnv>, sessionId: string, page: KeysPage, key: ApiKey | undefined) {
  const token = await formToken(sessionId);
  if (!key || status(key, Date.now()).active === false) {
    return c.html(
      <Page title="No such key" me={page.me} token={token} section="keys">
        <p>
          This account has no active key with that id. <a href={`${BASE}/keys`}>All keys</a>
        </p>
      </Page>,
      404,
    );
  }
  return c.html(
    <Page title="Revoke this key?" me={page.me} token={token} section="keys">
      <p>
        <strong>{keyLabel(key)}</strong>, {key.scope === 'read' ? 'read only' : 'read and write'}. From the moment you revoke it the API refuses it,
        and it cannot be turned back on.
      </p>
      <form method="post" action={`${BASE}/keys/${key.id}/revoke`} class="inline">
        <Token value={token} />
        <button type="submit" class="danger">
          Revoke the key
        </button>
        <a href={`${BASE}/keys`}>Cancel</a>
      </form>
    </Page>,
  );
}

/** A form's date (YYYY-MM-DD, UTC midnight) in milliseconds; null unless the day exists (31 February does not). */
function realDate(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text ? ms : null;
}

/** The form's values checked: the key's input, or the errors to show with what was typed. */
function parseKeyForm(form: Record<string, string>, now: number): { values: KeyForm; errors: Errors; expiresAt: number | null } {
  const values = { name: (form.name ?? '').trim(), scope: form.scope === 'read' ? 'read' : 'read_write', expires: (form.expires ?? '').trim() };
  const errors: Errors = {};
  if (values.name === '') errors.name = 'Enter a name for the key';
  else if (values.name.length > KEY_NAME_MAX) errors.name = `Use at most ${KEY_NAME_MAX} characters for the name`;
  let expiresAt: number | null = null;
  if (values.expires !== '') {
    const ms = realDate(values.expires);
    if (ms === null) errors.expires = 'Enter the expiry as a date, e.g. 2027-06-30';
    else if (ms <= now) errors.expires = 'The expiry date must be in the future';
    else expiresAt = ms;
  }
  return { values, errors, expiresAt };
}

const keyId = (text: string) => (/^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : null);

export const keyRoutes = new Hono<DashboardEnv>()
  .get('/keys', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    return render(c, sessionId, await keysPage(sessionDb(c), await sessionRef(sessionId)));
  })
  .post('/keys', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const { values, errors, expiresAt } = parseKeyForm(checked.form, ref.now);
    if (Object.keys(errors).length > 0) return render(c, checked.sessionId, await keysPage(sessionDb(c), ref), { values, errors }, 400);
    const scope = values.scope === 'read' ? 'read' : 'read_write';
    const created = await createKey(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { database: sessionDatabase(c), name: values.name, scope, expiresAt });
    if (!created.created) return render(c, checked.sessionId, created, { values, errors: { name: 'The key could not be created. Try again.' } }, 409);
    return changed(c, '/keys');
  })
  .post('/keys/:id/roll', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const id = keyId(c.req.param('id'));
    const grace = GRACES.find(([value]) => value === checked.form.grace);
    if (id === null || !grace) return render(c, checked.sessionId, await keysPage(sessionDb(c), ref), { notice: 'Choose a key and when its old version stops.' }, 400);
    const rolled = await rollKey(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { database: sessionDatabase(c), keyId: id, graceMs: Number(grace[0]) * 1000 });
    if (!rolled.rolled) return render(c, checked.sessionId, rolled, { notice: 'That key cannot be rolled: it is revoked, expired or not yours.' }, 409);
    return changed(c, '/keys');
  })
  .get('/keys/:id/revoke', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const id = keyId(c.req.param('id'));
    const page = await keysPage(sessionDb(c), await sessionRef(sessionId));
    return confirmRevoke(c, sessionId, page, page.keys.find((key) => key.id === id));
  })
  .post('/keys/:id/revoke', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const id = keyId(c.req.param('id'));
    if (id === null) return render(c, checked.sessionId, await keysPage(sessionDb(c), ref), { notice: 'No such key.' }, 404);
    const result = await revokeKey(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), id);
    if (!result.revoked) return render(c, checked.sessionId, result, { notice: 'No such key.' }, 404);
    return changed(c, '/keys');
  });
