// The Developers section's statements (dashboard/src/). Like the API's statements name their
// account through the request's key, these name it through the request's session
// (`accountOfSession`): a page's statements and its session check travel in one batch, and none
// of them reads or changes anything for a session that is unknown, signed out or expired. Keys and
// webhook endpoints are changed with the API's own statements (`insertKeyFrom`, `rollStatements`,
// `endpointStatements`), given the session as their owner.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { insertKeyFrom, newAccountId, rollStatements } from '../../../src/db/api-keys.ts';
import { endpointStatements } from '../../../src/db/webhooks.ts';
import { dashboardAudit, dashboardInvitations, dashboardKeyCreators, dashboardMembers, dashboardPasskeyChallenges, dashboardPasskeys, dashboardSessions, dashboardSignInLinks } from './schema.ts';
import { accountMoves, accounts, apiKeys, events, webhookEndpoints } from '../../../src/db/schema.ts';
import { statement } from '../../../src/db/statement.ts';

const p = sql.placeholder;

/**
 * What every session-guarded statement binds: the session id's hash, the time it is judged at, and
 * the roles that may do what the statement does (a JSON array: dashboard/src/permissions.ts
 * `rolesFor`; every role for what a page reads).
 */
export interface SessionCheck {
  sid: string;
  now: number;
  roles: string;
  /** 1 for a change's statements, 0 for a page's reads: a change is refused while its account's move holds writes. */
  change: 0 | 1;
}

/** True while the session's account is in the write pause of a move (src/moves/: its copy is being verified). */
const accountPaused = () =>
  sql`exists (select 1 from ${accountMoves} where ${accountMoves.accountId} = ${dashboardSessions.accountId} and ${accountMoves.state} = 'paused')`;

/**
 * The WHERE condition on dashboard_sessions of a live session with that hash whose member (still a
 * member) has one of `roles`: the permission table, enforced in the statement that writes. A
 * change's statements also find no session while the account's move holds its writes, as the
 * API's writes do, so that nothing is written to the copy being left.
 */
const liveSession = () =>
  sql`${dashboardSessions.idHash} = ${p('sid')} and ${dashboardSessions.idleExpiresAt} > ${p('now')} and ${dashboardSessions.expiresAt} > ${p('now')}
    and exists (select 1 from ${dashboardMembers} where ${dashboardMembers.id} = ${dashboardSessions.memberId} and ${dashboardMembers.role} in (select value from json_each(${p('roles')})))
    and (${p('change')} = 0 or not ${accountPaused()})`;

/** The signed-in member's id, as a scalar sub-select (NULL unless live with one of `roles`). */
const memberOfSession = () => sql`(select ${dashboardSessions.memberId} from ${dashboardSessions} where ${liveSession()})`;

/** The account of a live session, as a scalar sub-select: NULL (matching no row) otherwise. */
const accountOfSession = () => sql`(select ${dashboardSessions.accountId} from ${dashboardSessions} where ${liveSession()})`;

// Sessions.

/** Idle expiry moves forward at most once a minute, so a page view rarely writes. */
export const TOUCH_GRANULARITY_MS = 60_000;

/** `idleUntil`: the idle expiry from now; `staleBefore`: written only if the stored one is older than this (idleUntil − TOUCH_GRANULARITY_MS). */
export const touchSession = statement<SessionCheck & { idleUntil: number; staleBefore: number }>(
  () => sql`update ${dashboardSessions} set ${sql.identifier(dashboardSessions.idleExpiresAt.name)} = min(${p('idleUntil')}, ${dashboardSessions.expiresAt})
    where ${liveSession()} and ${dashboardSessions.idleExpiresAt} < ${p('staleBefore')}`,
);

/** The session's row with its member and account (no row: not signed in). */
export const sessionAccount = statement<SessionCheck>(
  () => sql`select ${accounts.id} as account_id, ${accounts.name} as name, ${accounts.email} as account_email, ${accounts.createdAt} as account_created_at,
    ${dashboardMembers.id} as member_id, ${dashboardMembers.email} as email, ${dashboardMembers.role} as role,
    ${dashboardSessions.createdAt} as signed_in_at, ${dashboardSessions.expiresAt} as expires_at, ${accountPaused()} as paused
    from ${dashboardSessions} inner join ${accounts} on ${accounts.id} = ${dashboardSessions.accountId}
    inner join ${dashboardMembers} on ${dashboardMembers.id} = ${dashboardSessions.memberId}
    where ${liveSession()}`,
);

/** The accounts the signed-in person is a member of (by their e-mail), to switch between: this database's. */
export const membershipsOfSession = statement<SessionCheck>(
  () => sql`select ${dashboardMembers.id} as member_id, ${dashboardMembers.role} as role, ${accounts.name} as name, ${accounts.id} as account_id
    from ${dashboardMembers} inner join ${accounts} on ${accounts.id} = ${dashboardMembers.accountId}
    where lower(${dashboardMembers.email}) = (select lower(me.email) from ${dashboardMembers} as me where me.id = ${memberOfSession()})
    order by ${accounts.name}, ${accounts.id}`,
);

/** Moves the session to another membership of the same person (same e-mail), in one statement. */
export const switchMembership = statement<SessionCheck & { memberId: number }>(
  () => sql`update ${dashboardSessions} set ${sql.identifier(dashboardSessions.memberId.name)} = ${p('memberId')},
      ${sql.identifier(dashboardSessions.accountId.name)} = (select ${dashboardMembers.accountId} from ${dashboardMembers} where ${dashboardMembers.id} = ${p('memberId')})
    where ${liveSession()} and ${dashboardSessions.memberId} <> ${p('memberId')} and exists (select 1 from ${dashboardMembers} as target, ${dashboardMembers} as me
      where target.id = ${p('memberId')} and me.id = ${dashboardSessions.memberId} and lower(target.email) = lower(me.email))`,
);

/**
 * The flash for a page request `readId` to show: one not read yet, or read by this very request (its
 * retry after D1 lost the reply). `markFlashRead`, after it in the batch, then marks it read, so a
 * reload shows it no more.
 */
export const flashToShow = statement<SessionCheck & { readId: string }>(
  () => sql`select case when ${dashboardSessions.flashReadBy} is null or ${dashboardSessions.flashReadBy} = ${p('readId')} then ${dashboardSessions.flash} end as flash
    from ${dashboardSessions} where ${liveSession()} and ${dashboardSessions.flash} is not null`,
);

export const markFlashRead = statement<SessionCheck & { readId: string }>(
  () => sql`update ${dashboardSessions} set ${sql.identifier(dashboardSessions.flashReadBy.name)} = ${p('readId')}
    where ${dashboardSessions.idHash} = ${p('sid')} and ${dashboardSessions.flash} is not null and ${dashboardSessions.flashReadBy} is null`,
);

/**
 * A change's flash (dashboard/src/flash.ts), stored unread when its audit row `auditId` exists: the
 * change happened, in this batch or in its first try (D1 lost the reply).
 */
export const setFlash = statement<SessionCheck & { flash: string; auditId: string }>(
  () => sql`update ${dashboardSessions} set ${sql.identifier(dashboardSessions.flash.name)} = ${p('flash')}, ${sql.identifier(dashboardSessions.flashReadBy.name)} = null
    where ${liveSession()} and exists (select 1 from ${dashboardAudit} where ${dashboardAudit.id} = ${p('auditId')})`,
);

export const deleteSession = statement<SessionCheck>(() => sql`delete from ${dashboardSessions} where ${dashboardSessions.idHash} = ${p('sid')}`);

/** Sign out everywhere: every session of the signed-in member, this one included (another member's are theirs). */
export const deleteMemberSessions = statement<SessionCheck>(
  () => sql`delete from ${dashboardSessions} where ${dashboardSessions.memberId} = ${memberOfSession()}`,
);

export const countSessions = statement<SessionCheck>(
  () => sql`select count(*) as n from ${dashboardSessions} where ${dashboardSessions.memberId} = ${memberOfSession()}
    and ${dashboardSessions.idleExpiresAt} > ${p('now')} and ${dashboardSessions.expiresAt} > ${p('now')}`,
);

// Sign-in links.

export interface LinkRequest {
  tokenHash: string;
  email: string;
  now: number;
  expiresAt: number;
  /** 1 when DASHBOARD_SIGNUP is "open": a link for any address; 0: only for an existing account's. */
  open: number;
  /** Live links an address may hold at once: a bound on the mail one address can be sent. */
  maxLive: number;
}

/** An account (of the statement's FROM) with no member yet: made with the admin API or CLI since; its e-mail becomes its first owner. */
const noMembers = () => sql`not exists (select 1 from ${dashboardMembers} where ${dashboardMembers.accountId} = ${accounts.id})`;

/** A link, stored when the address may sign in and holds fewer than `maxLive` live links; its row then. */
export const insertSignInLink = statement<LinkRequest>(
  () => sql`insert into ${dashboardSignInLinks} (token_hash, email, created_at, expires_at)
    select ${p('tokenHash')}, ${p('email')}, ${p('now')}, ${p('expiresAt')}
    where (${p('open')} = 1 or exists (select 1 from ${dashboardMembers} where lower(${dashboardMembers.email}) = lower(${p('email')}))
        or exists (select 1 from ${accounts} where lower(${accounts.email}) = lower(${p('email')}) and ${noMembers()}))
      and (select count(*) from ${dashboardSignInLinks} where lower(${dashboardSignInLinks.email}) = lower(${p('email')})
        and ${dashboardSignInLinks.expiresAt} > ${p('now')} and ${dashboardSignInLinks.usedAt} is null) < ${p('maxLive')}
    returning ${dashboardSignInLinks.tokenHash}`,
);

/** A live link's address and the account it signs into (none yet: open sign-up makes it), for its confirmation page. */
export const signInLinkAccount = statement<{ tokenHash: string; now: number }>(
  () => sql`select ${dashboardSignInLinks.email} as email,
      coalesce((select ${accounts.name} from ${dashboardMembers} inner join ${accounts} on ${accounts.id} = ${dashboardMembers.accountId} where ${dashboardMembers.id} = ${firstMembership()}),
        (select ${accounts.name} from ${accounts} where lower(${accounts.email}) = lower(${dashboardSignInLinks.email}))) as name
    from ${dashboardSignInLinks}
    where ${dashboardSignInLinks.tokenHash} = ${p('tokenHash')} and ${dashboardSignInLinks.usedAt} is null and ${dashboardSignInLinks.expiresAt} > ${p('now')}`,
);

export interface LinkUse {
  tokenHash: string;
  /** The new session id's hash: the link records it, so a retried sign-in finds its own session. */
  sid: string;
  now: number;
  idleUntil: number;
  expiresAt: number;
  open: number;
  /** The id below the first one the link's database gives out (databases.ts `idBase`; 0 for DB). */
  base: number;
  /** The API version a new account is pinned to (DEFAULT_API_VERSION). */
  apiVersion: string;
}

/** Marks the link used by this sign-in, if it is unused and unexpired. */
export const useSignInLink = statement<LinkUse>(
  () => sql`update ${dashboardSignInLinks} set ${sql.identifier(dashboardSignInLinks.usedAt.name)} = ${p('now')},
      ${sql.identifier(dashboardSignInLinks.sessionHash.name)} = ${p('sid')}
    where ${dashboardSignInLinks.tokenHash} = ${p('tokenHash')} and ${dashboardSignInLinks.usedAt} is null and ${dashboardSignInLinks.expiresAt} > ${p('now')}`,
);

const linkUsedBySession = () =>
  sql`${dashboardSignInLinks.tokenHash} = ${p('tokenHash')} and ${dashboardSignInLinks.sessionHash} = ${p('sid')}`;

/**
 * With DASHBOARD_SIGNUP "open": the account of a new address, named after its local part. Its id
 * names the link's database as db/accounts.ts `insertAccount`'s do; the sign-in request claimed the
 * address for this database in the directory (dashboard/src/workflows.ts).
 */
export const createAccountFromLink = statement<LinkUse>(
  () => sql`insert into ${accounts} (id, name, email, created_at, api_version)
    select ${newAccountId()},
      substr(${dashboardSignInLinks.email}, 1, instr(${dashboardSignInLinks.email}, '@') - 1), ${dashboardSignInLinks.email}, ${p('now')}, ${p('apiVersion')}
    from ${dashboardSignInLinks} where ${p('open')} = 1 and ${linkUsedBySession()}
      and not exists (select 1 from ${dashboardMembers} where lower(${dashboardMembers.email}) = lower(${dashboardSignInLinks.email}))
    on conflict do nothing`,
);

/** The first owner of the link's address's account, when it has no member yet (made with the admin API, or just now). */
export const firstOwnerFromLink = statement<LinkUse>(
  () => sql`insert into ${dashboardMembers} (account_id, email, role, created_at)
    select ${accounts.id}, ${accounts.email}, 'owner', ${p('now')}
    from ${dashboardSignInLinks} inner join ${accounts} on lower(${accounts.email}) = lower(${dashboardSignInLinks.email})
    where ${linkUsedBySession()} and ${noMembers()}
    on conflict do nothing`,
);

/** The member a link signs in as: the address's first membership (the others are a switch away). */
const firstMembership = () =>
  sql`(select min(${dashboardMembers.id}) from ${dashboardMembers} where lower(${dashboardMembers.email}) = lower(${dashboardSignInLinks.email}))`;

export const createSessionFromLink = statement<LinkUse>(
  () => sql`insert into ${dashboardSessions} (id_hash, account_id, member_id, created_at, idle_expires_at, expires_at)
    select ${p('sid')}, ${dashboardMembers.accountId}, ${dashboardMembers.id}, ${p('now')}, ${p('idleUntil')}, ${p('expiresAt')}
    from ${dashboardSignInLinks} inner join ${dashboardMembers} on ${dashboardMembers.id} = ${firstMembership()}
    where ${linkUsedBySession()}
    on conflict do nothing`,
);

// The audit log.

export interface AuditValues extends SessionCheck {
  auditId: string;
  action: string;
  target: string | null;
  address: string | null;
  userAgent: string | null;
}

/**
 * An audit row for the session's account, naming its member (their e-mail), written when `condition` holds (the change
 * it records happened). Retry-safe: `auditId` is drawn once by the request.
 */
export function auditWhen<Extra extends object = object>(condition: () => SQL = () => sql`1 = 1`, target: () => SQL = () => sql`${p('target')}`) {
  return statement<AuditValues & Extra>(
    () => sql`insert into ${dashboardAudit} (id, account_id, actor, action, target, address, user_agent, created_at)
      select ${p('auditId')}, ${dashboardSessions.accountId}, ${dashboardMembers.email}, ${p('action')}, ${target()}, ${p('address')}, ${p('userAgent')}, ${p('now')}
      from ${dashboardSessions} inner join ${dashboardMembers} on ${dashboardMembers.id} = ${dashboardSessions.memberId}
      where ${liveSession()} and ${condition()}
      on conflict do nothing`,
  );
}

/** Sign-in, sign-out: the session itself is the condition. */
export const audit = auditWhen();

/**
 * A change's row, written when the change's last write statement (the one before it in the batch)
 * changed a row: a key inserted, rolled or revoked, an endpoint made, rotated, enabled, disabled
 * or deleted. A retry after the change committed changes nothing and writes no second row (its
 * first try's row is there, written in the same batch).
 */
export const auditChange = auditWhen(() => sql`changes() > 0`);

/**
 * A key as every audit row names it, read from its row: `name (prefix…last4)`. One wording for
 * created, rolled and revoked, written once here.
 */
const keyLabel = (where: SQL) =>
  sql`(select coalesce(${apiKeys.name}, 'unnamed key') || ' (' || ${apiKeys.prefix} || '…' || coalesce(${apiKeys.lastFour}, '') || ')' from ${apiKeys} where ${where})`;
const keyById = () => keyLabel(sql`${apiKeys.id} = ${p('keyId')}`);
const keyByHash = () => keyLabel(sql`${apiKeys.keyHash} = ${p('keyHash')}`);
/** The one time format of audit details, as the audit page shows its own times (views.tsx `Time`). */
const auditTime = (ms: SQL) => sql`strftime('%Y-%m-%d %H:%M UTC', ${ms} / 1000, 'unixepoch')`;

/** A key made: named from its row. */
export const auditKeyCreated = auditWhen<{ keyHash: string }>(() => sql`changes() > 0`, keyByHash);
/** A key revoked: named from its row. */
export const auditKeyRevoked = auditWhen<{ keyId: number }>(() => sql`changes() > 0`, keyById);
/** A key rolled: the old key, the new one, and when the old one stops (its row's expiry, after the roll). */
export const auditKeyRolled = auditWhen<{ keyId: number; keyHash: string }>(
  () => sql`changes() > 0`,
  () =>
    sql`${keyById()} || ' → ' || ${keyByHash()} || '; the old key stops ' || coalesce(${auditTime(sql`(select ${apiKeys.expiresAt} from ${apiKeys} where ${apiKeys.id} = ${p('keyId')})`)}, 'never')`,
);

/** A member's role changed: named from their row, after the change. */
export const auditMember = auditWhen<{ memberId: number }>(
  () => sql`changes() > 0`,
  () => sql`(select ${dashboardMembers.email} || ' is now ' || ${dashboardMembers.role} from ${dashboardMembers} where ${dashboardMembers.id} = ${p('memberId')})`,
);

/**
 * A member's removal, written before it under the same condition (their row is still there to
 * name them): the member is the account's, and not its last owner.
 */
export const auditMemberRemoval = auditWhen<{ memberId: number; selfOnly: number }>(
  () => sql`exists (select 1 from ${dashboardMembers} as gone where gone.id = ${p('memberId')} and gone.account_id = ${dashboardSessions.accountId}
    and (${p('selfOnly')} = 0 or gone.id = ${dashboardSessions.memberId})
    and (gone.role <> 'owner' or (select count(*) from ${dashboardMembers} as o where o.account_id = ${dashboardSessions.accountId} and o.role = 'owner' and o.id <> ${p('memberId')}) > 0))`,
  () => sql`(select gone.email || ' (' || gone.role || ')' from ${dashboardMembers} as gone where gone.id = ${p('memberId')})`,
);

/** An invitation revoked: named from its row. */
export const auditInvitationRevoked = auditWhen<{ ref: string }>(
  () => sql`changes() > 0`,
  () => sql`(select ${dashboardInvitations.email} || ' as ' || ${dashboardInvitations.role} from ${dashboardInvitations} where substr(${dashboardInvitations.tokenHash}, 1, 16) = ${p('ref')})`,
);

/** A switch to another account: recorded in the account switched to, naming it. */
export const auditSwitch = auditWhen(
  () => sql`changes() > 0`,
  () => sql`(select ${accounts.name} from ${accounts} where ${accounts.id} = ${dashboardSessions.accountId})`,
);

/** A resend: no write of its own, so the condition is that the endpoint and the event are the account's. */
export const auditResend = auditWhen<{ endpointId: string; eventId: string }>(
  () => sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${p('endpointId')} and ${webhookEndpoints.accountId} = ${dashboardSessions.accountId})
    and exists (select 1 from ${events} where ${events.id} = ${p('eventId')} and ${events.accountId} = ${dashboardSessions.accountId})`,
);

export const auditPage = statement<SessionCheck & { before: number; limit: number }>(
  () => sql`select * from ${dashboardAudit} where ${dashboardAudit.accountId} = ${accountOfSession()} and ${dashboardAudit.seq} < ${p('before')}
    order by ${dashboardAudit.seq} desc limit ${p('limit')}`,
);

// Keys.

/** The account's keys, each with the member who made it in the dashboard (`created_by`; null: the admin API or CLI). */
export const keysOfSession = statement<SessionCheck>(
  () => sql`select ${apiKeys}.*, ${dashboardKeyCreators.email} as created_by from ${apiKeys}
    left join ${dashboardKeyCreators} on ${dashboardKeyCreators.keyId} = ${apiKeys.id}
    where ${apiKeys.accountId} = ${accountOfSession()} order by ${apiKeys.id} desc`,
);

/** Records the signed-in member as the maker of the key `keyHash` (just inserted in the same batch). */
export const recordKeyCreator = statement<SessionCheck & { keyHash: string }>(
  () => sql`insert into ${dashboardKeyCreators} (key_id, email)
    select ${apiKeys.id}, ${dashboardMembers.email} from ${apiKeys}, ${dashboardSessions}
      inner join ${dashboardMembers} on ${dashboardMembers.id} = ${dashboardSessions.memberId}
    where ${apiKeys.keyHash} = ${p('keyHash')} and ${liveSession()} and ${apiKeys.accountId} = ${dashboardSessions.accountId}
    on conflict do nothing`,
);

export const insertKeyOfSession = insertKeyFrom<SessionCheck>(() => ({
  from: sql`from ${dashboardSessions} where ${liveSession()}`,
  accountId: sql`${dashboardSessions.accountId}`,
}));

export const keyByHashOfSession = statement<SessionCheck & { keyHash: string }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.keyHash} = ${p('keyHash')} and ${apiKeys.accountId} = ${accountOfSession()}`,
);

export const keyOfSession = statement<SessionCheck & { keyId: number }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.id} = ${p('keyId')} and ${apiKeys.accountId} = ${accountOfSession()}`,
);

export const rollKeyOfSession = rollStatements<SessionCheck>(() => sql`${apiKeys.accountId} = ${accountOfSession()}`);

export const revokeKeyOfSession = statement<SessionCheck & { keyId: number }>(
  () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.revokedAt.name)} = ${p('now')}
    where ${apiKeys.id} = ${p('keyId')} and ${apiKeys.accountId} = ${accountOfSession()} and ${apiKeys.revokedAt} is null`,
);

// Members and invitations.

export const membersOfSession = statement<SessionCheck>(
  () => sql`select * from ${dashboardMembers} where ${dashboardMembers.accountId} = ${accountOfSession()}
    order by case ${dashboardMembers.role} when 'owner' then 0 when 'developer' then 1 else 2 end, lower(${dashboardMembers.email})`,
);

/** Invitations not yet accepted, revoked or expired. */
export const invitationsOfSession = statement<SessionCheck>(
  () => sql`select * from ${dashboardInvitations} where ${dashboardInvitations.accountId} = ${accountOfSession()}
    and ${dashboardInvitations.usedAt} is null and ${dashboardInvitations.revokedAt} is null and ${dashboardInvitations.expiresAt} > ${p('now')}
    order by ${dashboardInvitations.createdAt} desc`,
);

export interface InvitationValues extends SessionCheck {
  tokenHash: string;
  email: string;
  role: string;
  expiresAt: number;
  /** Pending invitations an account may hold: a bound on the mail one account can have sent. */
  maxPending: number;
}

/**
 * An invitation of the session's account, unless the address is already a member or the account
 * holds `maxPending` pending ones. Retry-safe: the token (its hash) is drawn once per request.
 */
export const insertInvitation = statement<InvitationValues>(
  () => sql`insert into ${dashboardInvitations} (token_hash, account_id, email, role, invited_by, created_at, expires_at)
    select ${p('tokenHash')}, ${dashboardSessions.accountId}, ${p('email')}, ${p('role')}, ${dashboardMembers.email}, ${p('now')}, ${p('expiresAt')}
    from ${dashboardSessions} inner join ${dashboardMembers} on ${dashboardMembers.id} = ${dashboardSessions.memberId}
    where ${liveSession()}
      and not exists (select 1 from ${dashboardMembers} as m where m.account_id = ${dashboardSessions.accountId} and lower(m.email) = lower(${p('email')}))
      and (select count(*) from ${dashboardInvitations} as i where i.account_id = ${dashboardSessions.accountId} and i.used_at is null
        and i.revoked_at is null and i.expires_at > ${p('now')}) < ${p('maxPending')}
    on conflict do nothing`,
);

export const invitationByHash = statement<SessionCheck & { tokenHash: string }>(
  () => sql`select * from ${dashboardInvitations} where ${dashboardInvitations.tokenHash} = ${p('tokenHash')} and ${dashboardInvitations.accountId} = ${accountOfSession()}`,
);

/** Invitations are named in URLs by the first 16 characters of their hash (never the token). */
export const revokeInvitation = statement<SessionCheck & { ref: string }>(
  () => sql`update ${dashboardInvitations} set ${sql.identifier(dashboardInvitations.revokedAt.name)} = ${p('now')}
    where substr(${dashboardInvitations.tokenHash}, 1, 16) = ${p('ref')} and ${dashboardInvitations.accountId} = ${accountOfSession()}
      and ${dashboardInvitations.usedAt} is null and ${dashboardInvitations.revokedAt} is null`,
);

/** Owners of the session's account other than `memberId`: an account always keeps one. */
const otherOwners = () =>
  sql`(select count(*) from ${dashboardMembers} as o where o.account_id = ${accountOfSession()} and o.role = 'owner' and o.id <> ${p('memberId')})`;

/** A member's new role; an owner is demoted only while another owner remains. */
export const changeRole = statement<SessionCheck & { memberId: number; role: string }>(
  () => sql`update ${dashboardMembers} set ${sql.identifier(dashboardMembers.role.name)} = ${p('role')}
    where ${dashboardMembers.id} = ${p('memberId')} and ${dashboardMembers.accountId} = ${accountOfSession()} and ${dashboardMembers.role} <> ${p('role')}
      and (${dashboardMembers.role} <> 'owner' or ${otherOwners()} > 0)`,
);

/**
 * Removes a member (an owner only while another owner remains; with `selfOnly` 1, only the signed-in
 * member: leaving, which every role may); `removeMemberSessions`, next in the
 * batch, then ends their sessions at once. Its condition is on the session of the one removing,
 * who may be the member removed (leaving), so the member goes first.
 */
export const removeMember = statement<SessionCheck & { memberId: number; selfOnly: number }>(
  () => sql`delete from ${dashboardMembers}
    where ${dashboardMembers.id} = ${p('memberId')} and ${dashboardMembers.accountId} = ${accountOfSession()}
      and (${p('selfOnly')} = 0 or ${dashboardMembers.id} = ${memberOfSession()})
      and (${dashboardMembers.role} <> 'owner' or ${otherOwners()} > 0)`,
);

export const removeMemberSessions = statement<{ memberId: number }>(
  () => sql`delete from ${dashboardSessions} where ${dashboardSessions.memberId} = ${p('memberId')}
    and not exists (select 1 from ${dashboardMembers} where ${dashboardMembers.id} = ${p('memberId')})`,
);

/** The removed member's passkeys, in the batch that removes them: they sign in no more. */
export const removeMemberPasskeys = statement<{ memberId: number }>(
  () => sql`delete from ${dashboardPasskeys} where ${dashboardPasskeys.memberId} = ${p('memberId')}
    and not exists (select 1 from ${dashboardMembers} where ${dashboardMembers.id} = ${p('memberId')})`,
);

export const memberOfAccount = statement<SessionCheck & { memberId: number }>(
  () => sql`select * from ${dashboardMembers} where ${dashboardMembers.id} = ${p('memberId')} and ${dashboardMembers.accountId} = ${accountOfSession()}`,
);

// Accepting an invitation (no session yet: the invitation's token names the database).

export interface InvitationUse {
  tokenHash: string;
  sid: string;
  now: number;
  idleUntil: number;
  expiresAt: number;
}

/** What an invitation link offers, for its page: the account, the role, who invited (a live invitation only). */
export const invitationOffer = statement<{ tokenHash: string; now: number }>(
  () => sql`select ${dashboardInvitations.email} as email, ${dashboardInvitations.role} as role, ${dashboardInvitations.invitedBy} as invited_by, ${accounts.name} as name
    from ${dashboardInvitations} inner join ${accounts} on ${accounts.id} = ${dashboardInvitations.accountId}
    where ${dashboardInvitations.tokenHash} = ${p('tokenHash')} and ${dashboardInvitations.usedAt} is null
      and ${dashboardInvitations.revokedAt} is null and ${dashboardInvitations.expiresAt} > ${p('now')}`,
);

export const useInvitation = statement<InvitationUse>(
  () => sql`update ${dashboardInvitations} set ${sql.identifier(dashboardInvitations.usedAt.name)} = ${p('now')}, ${sql.identifier(dashboardInvitations.sessionHash.name)} = ${p('sid')}
    where ${dashboardInvitations.tokenHash} = ${p('tokenHash')} and ${dashboardInvitations.usedAt} is null
      and ${dashboardInvitations.revokedAt} is null and ${dashboardInvitations.expiresAt} > ${p('now')}`,
);

const invitationUsedBySession = () => sql`${dashboardInvitations.tokenHash} = ${p('tokenHash')} and ${dashboardInvitations.sessionHash} = ${p('sid')}`;

/** The member the invitation makes (a person already a member keeps the role they have). */
export const memberFromInvitation = statement<InvitationUse>(
  () => sql`insert into ${dashboardMembers} (account_id, email, role, created_at)
    select ${dashboardInvitations.accountId}, ${dashboardInvitations.email}, ${dashboardInvitations.role}, ${p('now')}
    from ${dashboardInvitations} where ${invitationUsedBySession()}
    on conflict do nothing`,
);

/** The invitee's own account on this database, if it has no member yet: its first owner (so a switch finds it). */
export const firstOwnerFromInvitation = statement<InvitationUse>(
  () => sql`insert into ${dashboardMembers} (account_id, email, role, created_at)
    select ${accounts.id}, ${accounts.email}, 'owner', ${p('now')}
    from ${dashboardInvitations} inner join ${accounts} on lower(${accounts.email}) = lower(${dashboardInvitations.email})
    where ${invitationUsedBySession()} and ${noMembers()}
    on conflict do nothing`,
);

export const sessionFromInvitation = statement<InvitationUse>(
  () => sql`insert into ${dashboardSessions} (id_hash, account_id, member_id, created_at, idle_expires_at, expires_at)
    select ${p('sid')}, ${dashboardMembers.accountId}, ${dashboardMembers.id}, ${p('now')}, ${p('idleUntil')}, ${p('expiresAt')}
    from ${dashboardInvitations} inner join ${dashboardMembers}
      on ${dashboardMembers.accountId} = ${dashboardInvitations.accountId} and lower(${dashboardMembers.email}) = lower(${dashboardInvitations.email})
    where ${invitationUsedBySession()}
    on conflict do nothing`,
);

// Passkeys (dashboard/src/passkeys.ts verifies what the browser sends; these store it).

/** A registration's challenge, bound to the session asking for it (a live one, of a role that may). */
export const insertRegisterChallenge = statement<SessionCheck & { challengeHash: string; expiresAt: number }>(
  () => sql`insert into ${dashboardPasskeyChallenges} (challenge_hash, purpose, session_hash, created_at, expires_at)
    select ${p('challengeHash')}, 'register', ${p('sid')}, ${p('now')}, ${p('expiresAt')} from ${dashboardSessions} where ${liveSession()}
    on conflict do nothing`,
);

/** A sign-in's challenge (no session yet). A retry after D1 lost the reply finds it stored: nothing twice. */
export const insertSignInChallenge = statement<{ challengeHash: string; now: number; expiresAt: number }>(
  () => sql`insert into ${dashboardPasskeyChallenges} (challenge_hash, purpose, created_at, expires_at)
    values (${p('challengeHash')}, 'sign_in', ${p('now')}, ${p('expiresAt')})
    on conflict do nothing`,
);

/**
 * Uses a challenge once: unused and unexpired, of that purpose (and for a registration, of this
 * session). `usedBy`, the request's id, lets that request's retry find it used by itself.
 */
export const useChallenge = statement<{ challengeHash: string; purpose: 'register' | 'sign_in'; sid: string | null; now: number; usedBy: string }>(
  () => sql`update ${dashboardPasskeyChallenges} set ${sql.identifier(dashboardPasskeyChallenges.usedAt.name)} = ${p('now')}, ${sql.identifier(dashboardPasskeyChallenges.usedBy.name)} = ${p('usedBy')}
    where ${dashboardPasskeyChallenges.challengeHash} = ${p('challengeHash')} and ${dashboardPasskeyChallenges.purpose} = ${p('purpose')}
      and (${p('sid')} is null or ${dashboardPasskeyChallenges.sessionHash} = ${p('sid')})
      and ${dashboardPasskeyChallenges.expiresAt} > ${p('now')}
      and (${dashboardPasskeyChallenges.usedAt} is null or ${dashboardPasskeyChallenges.usedBy} = ${p('usedBy')})
    returning ${dashboardPasskeyChallenges.challengeHash}`,
);

/** The signed-in member's passkeys. */
export const passkeysOfSession = statement<SessionCheck>(
  () => sql`select * from ${dashboardPasskeys} where ${dashboardPasskeys.memberId} = ${memberOfSession()} order by ${dashboardPasskeys.createdAt}, ${dashboardPasskeys.id}`,
);

export interface NewPasskey extends SessionCheck {
  credentialId: string;
  name: string;
  publicKey: string;
  signCount: number;
  challengeHash: string;
  usedBy: string;
}

/** Stores the passkey for the signed-in member when this request used its challenge (a retry: stored already, nothing twice). */
export const insertPasskey = statement<NewPasskey>(
  () => sql`insert into ${dashboardPasskeys} (id, member_id, name, public_key, sign_count, created_at)
    select ${p('credentialId')}, ${dashboardSessions.memberId}, ${p('name')}, ${p('publicKey')}, ${p('signCount')}, ${p('now')}
    from ${dashboardSessions} where ${liveSession()}
      and exists (select 1 from ${dashboardPasskeyChallenges} where ${dashboardPasskeyChallenges.challengeHash} = ${p('challengeHash')} and ${dashboardPasskeyChallenges.usedBy} = ${p('usedBy')})
    on conflict do nothing`,
);

export const renamePasskey = statement<SessionCheck & { credentialId: string; name: string }>(
  () => sql`update ${dashboardPasskeys} set ${sql.identifier(dashboardPasskeys.name.name)} = ${p('name')}
    where ${dashboardPasskeys.id} = ${p('credentialId')} and ${dashboardPasskeys.memberId} = ${memberOfSession()} and ${dashboardPasskeys.name} <> ${p('name')}`,
);

export const deletePasskey = statement<SessionCheck & { credentialId: string }>(
  () => sql`delete from ${dashboardPasskeys} where ${dashboardPasskeys.id} = ${p('credentialId')} and ${dashboardPasskeys.memberId} = ${memberOfSession()}`,
);

/** A passkey's audit row, naming it from its row (before a removal, which the row's own condition guards). */
export const auditPasskey = auditWhen<{ credentialId: string; after: number }>(
  () =>
    sql`exists (select 1 from ${dashboardPasskeys} where ${dashboardPasskeys.id} = ${p('credentialId')} and ${dashboardPasskeys.memberId} = ${dashboardSessions.memberId})
      and (${p('after')} = 0 or changes() > 0)`,
  () => sql`'passkey "' || (select ${dashboardPasskeys.name} from ${dashboardPasskeys} where ${dashboardPasskeys.id} = ${p('credentialId')}) || '"'`,
);

/** The passkey and the member it signs in as: the first membership of its member's address (as the e-mailed link does). */
export const passkeyForSignIn = statement<{ credentialId: string }>(
  () => sql`select ${dashboardPasskeys.id} as id, ${dashboardPasskeys.name} as name, ${dashboardPasskeys.publicKey} as public_key, ${dashboardPasskeys.signCount} as sign_count,
      ${dashboardPasskeys.memberId} as member_id
    from ${dashboardPasskeys} inner join ${dashboardMembers} on ${dashboardMembers.id} = ${dashboardPasskeys.memberId}
    where ${dashboardPasskeys.id} = ${p('credentialId')}`,
);

export interface PasskeyUse {
  credentialId: string;
  memberId: number;
  signCount: number;
  sid: string;
  now: number;
  idleUntil: number;
  expiresAt: number;
}

/** Records the use (the counter moves only forward: a retry changes nothing). */
export const usePasskey = statement<PasskeyUse>(
  () => sql`update ${dashboardPasskeys} set ${sql.identifier(dashboardPasskeys.signCount.name)} = max(${dashboardPasskeys.signCount}, ${p('signCount')}),
      ${sql.identifier(dashboardPasskeys.lastUsedAt.name)} = ${p('now')}
    where ${dashboardPasskeys.id} = ${p('credentialId')} and ${dashboardPasskeys.memberId} = ${p('memberId')}`,
);

/** The session a passkey's sign-in makes, as its member's address's first membership, while the passkey (and so its member) exists. */
export const sessionFromPasskey = statement<PasskeyUse>(
  () => sql`insert into ${dashboardSessions} (id_hash, account_id, member_id, created_at, idle_expires_at, expires_at)
    select ${p('sid')}, first.account_id, first.id, ${p('now')}, ${p('idleUntil')}, ${p('expiresAt')}
    from ${dashboardPasskeys} inner join ${dashboardMembers} as owner on owner.id = ${dashboardPasskeys.memberId}
      inner join ${dashboardMembers} as first on first.id = (select min(m.id) from ${dashboardMembers} as m where lower(m.email) = lower(owner.email))
    where ${dashboardPasskeys.id} = ${p('credentialId')} and ${dashboardPasskeys.memberId} = ${p('memberId')}
    on conflict do nothing`,
);

// Webhook endpoints.

/** The API's endpoint statements, owned by the session's account. */
export const sessionEndpoints = endpointStatements<SessionCheck>({
  account: accountOfSession,
  from: () => sql`from ${dashboardSessions} where ${liveSession()}`,
  accountId: () => sql`${dashboardSessions.accountId}`,
});

// Events.

export const eventOfSession = statement<SessionCheck & { eventId: string }>(
  () => sql`select * from ${events} where ${events.id} = ${p('eventId')} and ${events.accountId} = ${accountOfSession()}`,
);

function eventsPage(typed: boolean) {
  return statement<SessionCheck & { before: number; limit: number; type?: string }>(
    () => sql`select * from ${events} where ${events.accountId} = ${accountOfSession()} ${typed ? sql`and ${events.type} = ${p('type')}` : sql``}
      and ${events.seq} < ${p('before')} order by ${events.seq} desc limit ${p('limit')}`,
  );
}

export const eventPagesOfSession = { all: eventsPage(false), ofType: eventsPage(true) } as const;

// The account.

/** Scenarios stored: the count the API keeps for its quota (accounts.scenario_count), no rows counted. */
export const scenarioCount = statement<SessionCheck>(
  () => sql`select ${accounts.scenarioCount} as n from ${accounts} where ${accounts.id} = ${accountOfSession()}`,
);

// The daily prune (the dashboard Worker's cron).

export const pruneAudit = statement<{ before: number }>(() => sql`delete from ${dashboardAudit} where ${dashboardAudit.createdAt} < ${p('before')}`);
export const pruneSignInLinks = statement<{ before: number }>(
  () => sql`delete from ${dashboardSignInLinks} where ${dashboardSignInLinks.expiresAt} < ${p('before')}`,
);
export const pruneInvitations = statement<{ before: number }>(
  () => sql`delete from ${dashboardInvitations} where ${dashboardInvitations.expiresAt} < ${p('before')}`,
);
export const prunePasskeyChallenges = statement<{ before: number }>(
  () => sql`delete from ${dashboardPasskeyChallenges} where ${dashboardPasskeyChallenges.expiresAt} < ${p('before')}`,
);
export const pruneSessions = statement<{ now: number }>(
  () => sql`delete from ${dashboardSessions} where ${dashboardSessions.expiresAt} <= ${p('now')} or ${dashboardSessions.idleExpiresAt} <= ${p('now')}`,
);

// API versions (src/versions/): the session's account's pinned version, an upgrade and a rollback.

/** The account's version, the one before its last change, and when that change was made. */
export const sessionApiVersion = statement<SessionCheck>(
  () => sql`select ${accounts.apiVersion} as api_version, ${accounts.previousApiVersion} as previous_api_version,
    ${accounts.apiVersionChangedAt} as api_version_changed_at from ${accounts} where ${accounts.id} = ${accountOfSession()}`,
);

export interface ApiVersionChange extends SessionCheck {
  version: string;
  /** The version the page showed: nothing changes if the account has moved since. */
  from: string;
  /** 1: an upgrade (only to a newer version); 0: a rollback (only to the previous version, older, changed since `since`). */
  upgrade: number;
  since: number;
}

/** Versions are dates (YYYY-MM-DD), so their text orders them. */
export const setSessionApiVersion = statement<ApiVersionChange>(
  () => sql`update ${accounts} set
      ${sql.identifier(accounts.previousApiVersion.name)} = ${accounts.apiVersion},
      ${sql.identifier(accounts.apiVersionChangedAt.name)} = ${p('now')},
      ${sql.identifier(accounts.apiVersion.name)} = ${p('version')}
    where ${accounts.id} = ${accountOfSession()} and ${accounts.apiVersion} = ${p('from')} and (
      (${p('upgrade')} = 1 and ${accounts.apiVersion} < ${p('version')})
      or (${p('upgrade')} = 0 and ${accounts.previousApiVersion} = ${p('version')} and ${p('version')} < ${accounts.apiVersion}
        and ${accounts.apiVersionChangedAt} > ${p('since')}))`,
);
