// The dashboard Worker's own tables, beside its code rather than in the API's src/db/schema.ts:
// the API's bundle loads that file whole (esbuild keeps every table a module defines), and these
// are tables only the dashboard Worker reads. drizzle-kit reads both files (drizzle.config.ts);
// the migrations in drizzle/ hold both, for every database.
import { sql } from 'drizzle-orm/sql/sql';
import { integer } from 'drizzle-orm/sqlite-core/columns/integer';
import { text } from 'drizzle-orm/sqlite-core/columns/text';
import { index, uniqueIndex } from 'drizzle-orm/sqlite-core/indexes';
import { sqliteTable } from 'drizzle-orm/sqlite-core/table';
import { accounts, apiKeys } from '../../../src/db/schema.ts';

// The Developers section (dashboard/src/): its sign-in links, sessions and audit log. Links and
// sessions are stored only as the SHA-256 of what the user holds.

// A sign-in link e-mailed to `email`: single use (`used_at`), valid until `expires_at` (15 minutes).
// `session_hash` is the session its use made, so a retried sign-in finds the session it made.
export const dashboardSignInLinks = sqliteTable(
  'dashboard_sign_in_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    email: text('email').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    sessionHash: text('session_hash'),
  },
  // The links of one address still live (the per-address cap); the daily prune by expiry.
  (t) => [index('dashboard_sign_in_links_email_idx').on(sql`lower(${t.email})`, t.expiresAt), index('dashboard_sign_in_links_expires_idx').on(t.expiresAt)],
);

// The people of an account (docs/dashboard.md, "Members and roles"): one row per account and
// e-mail, with one role. A person may be a member of several accounts (of one database: a session
// names its database) and switches between them. The permissions of each role are written once,
// in dashboard/src/permissions.ts.
export const dashboardMembers = sqliteTable(
  'dashboard_members',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'developer', 'viewer'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('dashboard_members_account_email_unique').on(t.accountId, sql`lower(${t.email})`), index('dashboard_members_email_idx').on(sql`lower(${t.email})`)],
);

// An invitation to become a member with a role: e-mailed as a link, stored as its token's SHA-256,
// single use (`used_at`), 7 days (`expires_at`), revocable (`revoked_at`). `session_hash`: the
// session its acceptance made, so a retried acceptance finds its own.
export const dashboardInvitations = sqliteTable(
  'dashboard_invitations',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'developer', 'viewer'] }).notNull(),
    invitedBy: text('invited_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    revokedAt: integer('revoked_at'),
    sessionHash: text('session_hash'),
  },
  (t) => [index('dashboard_invitations_account_idx').on(t.accountId, t.createdAt), index('dashboard_invitations_expires_idx').on(t.expiresAt)],
);

// Which member made a key in the dashboard (keys made with the admin API or CLI have no row). Kept
// beside api_keys rather than in it: only the dashboard reads it.
export const dashboardKeyCreators = sqliteTable('dashboard_key_creators', {
  keyId: integer('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
});

// A signed-in browser. Live while both expiries are ahead: `idle_expires_at` moves forward with use
// (7 days), `expires_at` never does (30 days after sign-in). `flash` is what the page after a change
// shows once (a new key, a secret, a notice), sealed under a key derived from the session's id
// (dashboard/src/flash.ts): a change answers with a redirect and the page it leads to reads and
// marks it read, so nothing shown once travels in a URL and a copy of the database cannot open it.
// `flash_read_by` is the id of the page request that read it: that request's retry (D1 lost its
// reply) still shows it, a reload does not.
export const dashboardSessions = sqliteTable(
  'dashboard_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    idleExpiresAt: integer('idle_expires_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    flash: text('flash'),
    flashReadBy: text('flash_read_by'),
    // The member signed in (of `account_id`). No foreign key: a member's removal deletes the member
    // first (guarded by the remover's own session, which may be one of theirs), then their sessions;
    // a session whose member is gone is not live in any case (db/statements.ts `liveSession`).
    memberId: integer('member_id'),
  },
  (t) => [
    index('dashboard_sessions_account_idx').on(t.accountId),
    index('dashboard_sessions_expires_idx').on(t.expiresAt),
    index('dashboard_sessions_member_idx').on(t.memberId),
  ],
);

// Every sign-in and every change made in the dashboard, kept 1 year. `id` is drawn by the request,
// so a retried batch records its change once.
export const dashboardAudit = sqliteTable(
  'dashboard_audit',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // The member who did it (their e-mail address).
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    // What it was done to, in words (a key's name and prefix, an endpoint's URL).
    target: text('target'),
    address: text('address'),
    userAgent: text('user_agent'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('dashboard_audit_id_unique').on(t.id),
    index('dashboard_audit_account_seq_idx').on(t.accountId, t.seq),
    index('dashboard_audit_created_idx').on(t.createdAt),
  ],
);

export type DashboardMember = typeof dashboardMembers.$inferSelect;
export type DashboardInvitation = typeof dashboardInvitations.$inferSelect;
export type DashboardAuditRow = typeof dashboardAudit.$inferSelect;

// A member's passkeys (docs/dashboard.md, "Passkeys"): a WebAuthn credential by its id (base64url),
// its P-256 public key (SEC1, base64url) and the authenticator's signature counter (a clone check).
// Removing the member deletes them in the same batch; the foreign key is a second guard.
export const dashboardPasskeys = sqliteTable(
  'dashboard_passkeys',
  {
    id: text('id').primaryKey(),
    memberId: integer('member_id')
      .notNull()
      .references(() => dashboardMembers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    publicKey: text('public_key').notNull(),
    signCount: integer('sign_count').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [index('dashboard_passkeys_member_idx').on(t.memberId)],
);

// A WebAuthn challenge, stored as its SHA-256: single use (`used_at`, by the request `used_by`, so
// that request's retry still finds it), 5 minutes. A registration's is bound to the session that
// asked for it (`session_hash`); a sign-in's (no session yet) to nothing but itself.
export const dashboardPasskeyChallenges = sqliteTable(
  'dashboard_passkey_challenges',
  {
    challengeHash: text('challenge_hash').primaryKey(),
    purpose: text('purpose', { enum: ['register', 'sign_in'] }).notNull(),
    sessionHash: text('session_hash'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    usedBy: text('used_by'),
  },
  (t) => [index('dashboard_passkey_challenges_expires_idx').on(t.expiresAt)],
);

export type DashboardPasskey = typeof dashboardPasskeys.$inferSelect;
