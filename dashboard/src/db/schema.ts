// The dashboard Worker's own tables, beside its code rather than in the API's src/db/schema.ts:
// the API's bundle loads that file whole (esbuild keeps every table a module defines), and these
// are tables only the dashboard Worker reads. drizzle-kit reads both files (drizzle.config.ts);
// the migrations in drizzle/ hold both, for every database.
import { sql } from 'drizzle-orm/sql/sql';
import { integer } from 'drizzle-orm/sqlite-core/columns/integer';
import { text } from 'drizzle-orm/sqlite-core/columns/text';
import { index, uniqueIndex } from 'drizzle-orm/sqlite-core/indexes';
import { sqliteTable } from 'drizzle-orm/sqlite-core/table';
import { accounts } from '../../../src/db/schema.ts';

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

// A signed-in browser. Live while both expiries are ahead: `idle_expires_at` moves forward with use
// (7 days), `expires_at` never does (30 days after sign-in).
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
  },
  (t) => [index('dashboard_sessions_account_idx').on(t.accountId), index('dashboard_sessions_expires_idx').on(t.expiresAt)],
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
    // The e-mail address signed in when it happened.
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

export type DashboardAuditRow = typeof dashboardAudit.$inferSelect;
