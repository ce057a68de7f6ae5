// Members and roles: the account's members (role, since), its pending invitations, invite (an
// e-mailed link, single use, 7 days), change a role, remove a member (after a confirmation page),
// leave; accepting an invitation (its page names the account, the role and who invited); switching
// between the accounts one is a member of. What each role may do is permissions.ts; the server
// refuses the rest (403) inside the change's own batch, and these pages hide it.
import { Hono, type Context } from 'hono';
import type { DashboardMember } from '../db/schema.ts';
import { readDatabases } from '../../../src/env.ts';
import type { DashboardEnv } from '../env.ts';
import type { Flash } from '../flash.ts';
import { changed, flashOf, formFields, sealer, sessionDatabase, sessionDb, signedInForm, toSignIn } from '../http.ts';
import { isRole, may, ROLE_TEXT, ROLES, type Role } from '../permissions.ts';
import { clearedSessionCookie, formToken, sessionCookie } from '../session.ts';
import { BASE, ErrorSummary, Field, Notice, Page, Table, Time, Token, type Errors } from '../views.tsx';
import {
  acceptInvitation,
  changeMemberRole,
  invitationOffer,
  INVITATION_TTL_MS,
  invite,
  membersPage,
  membershipsOf,
  removeMember,
  revokeInvitation,
  sessionRef,
  switchAccount,
  type MembersPage,
} from '../workflows.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX = 254;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const INVITATION_REF = /^[0-9a-f]{16}$/;
const memberId = (text: string | undefined) => (text && /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : null);

function FlashView({ flash, page }: { flash: Flash | null; page: MembersPage }) {
  if (flash?.kind === 'member.invited') return <Notice>{`Invitation sent to ${flash.email}. The link works once, within 7 days.`}</Notice>;
  if (flash?.kind === 'invitation.revoked') return <Notice>The invitation is revoked: its link no longer works.</Notice>;
  if (flash?.kind === 'member.removed') return <Notice>The member is removed, and signed out everywhere.</Notice>;
  if (flash?.kind === 'member.role_changed') {
    const member = page.members.find((m) => m.id === flash.memberId);
    return member ? <Notice>{`${member.email} is now ${member.role === 'owner' ? 'an owner' : `a ${member.role}`}.`}</Notice> : null;
  }
  return null;
}

function RoleSelect({ id, name = 'role', selected }: { id: string; name?: string; selected: Role }) {
  return (
    <select id={id} name={name}>
      {ROLES.map((role) => (
        <option value={role} selected={role === selected}>
          {role}
        </option>
      ))}
    </select>
  );
}

function MemberRow({ member, page, token, owners }: { member: DashboardMember; page: MembersPage; token: string; owners: number }) {
  const self = member.id === page.me.memberId;
  const lastOwner = member.role === 'owner' && owners <= 1;
  const manage = may(page.me.role, 'members.role');
  return (
    <tr>
      <td class="token">
        {member.email}
        {self ? ' (you)' : ''}
      </td>
      <td>{member.role}</td>
      <td>
        <Time ms={member.createdAt} />
      </td>
      <td>
        {manage && !lastOwner ? (
          <form method="post" action={`${BASE}/members/${member.id}/role`} class="inline">
            <Token value={token} />
            <label for={`role-${member.id}`}>Role</label>
            <RoleSelect id={`role-${member.id}`} selected={member.role} />
            <button type="submit" class="secondary" aria-label={`Change the role of ${member.email}`}>
              Change
            </button>
          </form>
        ) : null}
        {lastOwner ? <span class="hint">The last owner: make another owner first.</span> : null}
        {!lastOwner && (self ? may(page.me.role, 'members.leave') : may(page.me.role, 'members.remove')) ? (
          <a href={`${BASE}/members/${member.id}/remove`} class="button danger" aria-label={self ? 'Leave this account…' : `Remove ${member.email}…`}>
            {self ? 'Leave…' : 'Remove…'}
          </a>
        ) : null}
      </td>
    </tr>
  );
}

async function render(c: Context<DashboardEnv>, sessionId: string, page: MembersPage, extra: { values?: { email: string; role: string }; errors?: Errors; notice?: string } = {}, status: 200 | 400 | 404 | 409 = 200) {
  const token = await formToken(sessionId);
  const flash = await flashOf(sessionId, page.me.flash);
  const owners = page.members.filter((m) => m.role === 'owner').length;
  const canInvite = may(page.me.role, 'members.invite');
  const values = extra.values ?? { email: '', role: 'viewer' };
  const errors = extra.errors ?? {};
  return c.html(
    <Page title="Members" me={page.me} token={token} section="members">
      {extra.notice ? <Notice>{extra.notice}</Notice> : null}
      <FlashView flash={flash} page={page} />
      <p>
        You are {page.me.role === 'owner' ? 'an owner' : `a ${page.me.role}`} of {page.me.name}. {ROLE_TEXT[page.me.role]}.
      </p>
      <Table label="Members" caption="The account's members" columns={['Member', 'Role', 'Since', 'Actions']}>
        {page.members.map((member) => (
          <MemberRow member={member} page={page} token={token} owners={owners} />
        ))}
      </Table>
      <section aria-labelledby="invitations">
        <h2 id="invitations">Pending invitations</h2>
        {page.invitations.length === 0 ? (
          <p>None.</p>
        ) : (
          <Table label="Pending invitations" columns={['E-mail', 'Role', 'Invited by', 'Expires', 'Actions']}>
            {page.invitations.map((invitation) => (
              <tr>
                <td class="token">{invitation.email}</td>
                <td>{invitation.role}</td>
                <td class="token">{invitation.invitedBy}</td>
                <td>
                  <Time ms={invitation.expiresAt} />
                </td>
                <td>
                  {canInvite ? (
                    <form method="post" action={`${BASE}/members/invitations/${invitation.tokenHash.slice(0, 16)}/revoke`} class="inline">
                      <Token value={token} />
                      <button type="submit" class="secondary" aria-label={`Revoke the invitation of ${invitation.email}`}>
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {canInvite ? (
        <section aria-labelledby="invite">
          <h2 id="invite">Invite someone</h2>
          <ErrorSummary errors={errors} />
          <form method="post" action={`${BASE}/members/invite`} novalidate>
            <Token value={token} />
            <Field name="email" label="E-mail address" type="email" value={values.email} error={errors.email} required maxlength={EMAIL_MAX} autocomplete="off" />
            <fieldset>
              <legend>Role</legend>
              {ROLES.map((role) => (
                <div class="choice">
                  <input type="radio" id={`invite-${role}`} name="role" value={role} checked={values.role === role} />
                  <label for={`invite-${role}`}>{ROLE_TEXT[role]}</label>
                </div>
              ))}
            </fieldset>
            <button type="submit">Send the invitation</button>
          </form>
        </section>
      ) : null}
    </Page>,
    status,
  );
}

function invitationEmail(link: string, from: string, to: string, offer: { account: string; role: Role; by: string }) {
  return {
    from,
    to,
    subject: `${offer.by} invites you to ${offer.account} on the Scenario Service dashboard`,
    text: `${offer.by} invites you to the account ${offer.account} as ${offer.role}. Join it in the Scenario Service dashboard as ${to}:\n\n${link}\n\nThe link works once, within ${INVITATION_TTL_MS / 86_400_000} days. If you do not expect it, ignore this e-mail.\n`,
  };
}

export const memberRoutes = new Hono<DashboardEnv>()
  .get('/members', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    return render(c, sessionId, await membersPage(sessionDb(c), await sessionRef(sessionId)));
  })
  .post('/members/invite', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const values = { email: (checked.form.email ?? '').trim(), role: checked.form.role ?? '' };
    const errors: Errors = {};
    if (!EMAIL.test(values.email) || values.email.length > EMAIL_MAX) errors.email = values.email === '' ? 'Enter the e-mail address to invite' : 'Enter an e-mail address like name@example.com';
    if (!isRole(values.role)) errors.role = 'Choose a role';
    const config = c.get('config');
    if (!config.publicOrigin) return c.text('The dashboard cannot send invitations: its PUBLIC_ORIGIN var is not set.', 500);
    if (Object.keys(errors).length > 0 || !isRole(values.role)) return render(c, checked.sessionId, await membersPage(sessionDb(c), ref), { values, errors }, 400);
    const result = await invite(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { database: sessionDatabase(c), email: values.email, role: values.role });
    if (!result.token) {
      const why = result.members.some((m) => m.email.toLowerCase() === values.email.toLowerCase())
        ? 'That address is already a member'
        : 'The account has too many pending invitations: revoke one first';
      return render(c, checked.sessionId, result, { values, errors: { email: why } }, 409);
    }
    const link = `${config.publicOrigin}${BASE}/invitations/accept?token=${result.token}`;
    const message = invitationEmail(link, config.emailFrom, values.email, { account: result.me.name, role: values.role, by: result.me.email });
    c.executionCtx.waitUntil(
      c.env.EMAIL.send(message).then(
        () => undefined,
        (error: unknown) => console.error(JSON.stringify({ level: 'error', msg: 'invitation e-mail not sent', error: error instanceof Error ? error.name : 'unknown' })),
      ),
    );
    return changed(c, '/members');
  })
  .post('/members/invitations/:ref/revoke', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const invitation = c.req.param('ref');
    if (!INVITATION_REF.test(invitation)) return render(c, checked.sessionId, await membersPage(sessionDb(c), ref), { notice: 'No such invitation.' }, 404);
    await revokeInvitation(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), invitation);
    return changed(c, '/members');
  })
  .post('/members/:id/role', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const id = memberId(c.req.param('id'));
    const role = checked.form.role;
    if (id === null || !isRole(role)) return render(c, checked.sessionId, await membersPage(sessionDb(c), ref), { notice: 'Choose a member and a role.' }, 400);
    const result = await changeMemberRole(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { memberId: id, role });
    if (!result.member) return render(c, checked.sessionId, result, { notice: 'No such member.' }, 404);
    if (result.member.role !== role) return render(c, checked.sessionId, result, { notice: 'The last owner stays an owner: make another member an owner first.' }, 409);
    return changed(c, '/members');
  })
  .get('/members/:id/remove', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const page = await membersPage(sessionDb(c), await sessionRef(sessionId));
    const id = memberId(c.req.param('id'));
    const member = page.members.find((m) => m.id === id);
    const token = await formToken(sessionId);
    if (!member) return render(c, sessionId, page, { notice: 'No such member.' }, 404);
    const self = member.id === page.me.memberId;
    return c.html(
      <Page title={self ? 'Leave this account?' : 'Remove this member?'} me={page.me} token={token} section="members">
        <p>
          {self ? (
            <>
              You stop being a member of <strong>{page.me.name}</strong> and are signed out of it everywhere.
            </>
          ) : (
            <>
              <strong>{member.email}</strong> ({member.role}) stops being a member of {page.me.name} and is signed out everywhere at once. Their keys keep
              working.
            </>
          )}
        </p>
        <form method="post" action={`${BASE}/members/${member.id}/remove`} class="inline">
          <Token value={token} />
          {self ? <input type="hidden" name="self" value="1" /> : null}
          <button type="submit" class="danger">
            {self ? 'Leave the account' : 'Remove the member'}
          </button>
          <a href={`${BASE}/members`}>Cancel</a>
        </form>
      </Page>,
    );
  })
  .post('/members/:id/remove', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const ref = await sessionRef(checked.sessionId);
    const id = memberId(c.req.param('id'));
    if (id === null) return render(c, checked.sessionId, await membersPage(sessionDb(c), ref), { notice: 'No such member.' }, 404);
    // Leaving (the confirmation page of one's own row says so) is allowed to every role, and its
    // statements remove only the signed-in member, whatever a forged form names.
    const leaving = checked.form.self === '1';
    const result = await removeMember(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { memberId: id, leaving });
    if (result.me.memberId === id && result.removed) {
      c.header('Set-Cookie', clearedSessionCookie());
      return c.redirect(`${BASE}/sign-in?signed_out`, 303);
    }
    if (!result.removed) return render(c, checked.sessionId, result, { notice: 'That member cannot be removed: an account keeps its last owner.' }, 409);
    return changed(c, '/members');
  })
  .get('/accounts', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    const { me, list } = await membershipsOf(sessionDb(c), await sessionRef(sessionId));
    const token = await formToken(sessionId);
    return c.html(
      <Page title="Your accounts" me={me} token={token}>
        <p>You are a member of these accounts. Switch to work in another.</p>
        <ul>
          {list.map((m) => (
            <li>
              {m.memberId === me.memberId ? (
                <>
                  <strong>{m.name}</strong> ({m.role}), the one you are in
                </>
              ) : (
                <form method="post" action={`${BASE}/accounts/switch`} class="inline">
                  <Token value={token} />
                  <input type="hidden" name="member_id" value={String(m.memberId)} />
                  <span>
                    {m.name} ({m.role})
                  </span>
                  <button type="submit" class="secondary" aria-label={`Switch to ${m.name}`}>
                    Switch
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      </Page>,
    );
  })
  .post('/accounts/switch', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const id = memberId(checked.form.member_id);
    if (id !== null) await switchAccount(sessionDb(c), await sessionRef(checked.sessionId), c.get('client'), id);
    return changed(c, '/keys');
  })
  .get('/invitations/accept', async (c) => {
    const token = c.req.query('token') ?? '';
    const offer = TOKEN.test(token) ? await invitationOffer(readDatabases(c.env), token, Date.now()) : null;
    if (!offer) {
      return c.html(
        <Page title="Invitation">
          <p>This invitation has expired, was revoked or was already used. Ask the account's owner for a new one.</p>
        </Page>,
        400,
      );
    }
    return c.html(
      <Page title="Join an account">
        <p>
          {offer.invitedBy} invites <strong>{offer.email}</strong> to the account <strong>{offer.name}</strong> as {offer.role === 'owner' ? 'an owner' : `a ${offer.role}`}{' '}
          ({ROLE_TEXT[offer.role]}).
        </p>
        <form method="post" action={`${BASE}/invitations/accept`}>
          <input type="hidden" name="token" value={token} />
          <button type="submit">{`Join ${offer.name}`}</button>
        </form>
      </Page>,
    );
  })
  .post('/invitations/accept', async (c) => {
    const form = await formFields(c);
    const token = form?.token ?? '';
    const accepted = TOKEN.test(token) ? await acceptInvitation(readDatabases(c.env), { token, now: Date.now(), client: c.get('client') }) : null;
    if (!accepted) {
      return c.html(
        <Page title="Invitation">
          <p>This invitation has expired, was revoked or was already used. Ask the account's owner for a new one.</p>
        </Page>,
        400,
      );
    }
    c.header('Set-Cookie', sessionCookie(accepted.sessionId));
    return c.redirect(`${BASE}/keys`, 303);
  });
