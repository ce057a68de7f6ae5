// Every table of the service, defined once. drizzle-kit generates the migrations in drizzle/ from
// this file, and the query modules beside it infer their row types from it.
// Times are integer milliseconds since the epoch (UTC); the HTTP layer formats them.
// drizzle is imported by its subpath modules (drizzle-orm/sql/sql, …/sqlite-core/table), never its
// index, here and in every db module: behind the lazily loaded app esbuild keeps all an index
// re-exports, 28 KiB of drizzle the Worker never runs (docs/decisions.md, "Cold start").
import { sql } from 'drizzle-orm/sql/sql';
import { check } from 'drizzle-orm/sqlite-core/checks';
import { integer } from 'drizzle-orm/sqlite-core/columns/integer';
import { text } from 'drizzle-orm/sqlite-core/columns/text';
import { index, uniqueIndex } from 'drizzle-orm/sqlite-core/indexes';
import { primaryKey } from 'drizzle-orm/sqlite-core/primary-keys';
import { sqliteTable } from 'drizzle-orm/sqlite-core/table';

export const accounts = sqliteTable(
  'accounts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    createdAt: integer('created_at').notNull(),
    // Scenarios the account holds, kept by the batches that create and delete them (the storage
    // quota, ACCOUNT_MAX_SCENARIOS, is checked against it without counting rows).
    scenarioCount: integer('scenario_count').notNull().default(0),
    // The id the admin request that created the account drew (null for accounts made before it
    // was recorded): a retry after D1 lost the reply finds its own account by it, and answers 201
    // instead of the 409 its e-mail address would now get.
    changeId: text('change_id'),
    // The API version the account's requests get when they send no API-Version header
    // (src/versions/): set when the account is made (DEFAULT_API_VERSION), changed by an upgrade
    // or a rollback. Accounts made before versions existed have the specification's shapes.
    apiVersion: text('api_version').notNull().default('2026-11-21'),
    // The version before the last change of api_version and when that change was made: a
    // rollback within 72 hours returns to it (the dashboard's account page).
    previousApiVersion: text('previous_api_version'),
    apiVersionChangedAt: integer('api_version_changed_at'),
  },
  (t) => [
    // E-mail addresses are unique regardless of case, as mail systems treat them.
    uniqueIndex('accounts_email_unique').on(sql`lower(${t.email})`),
    uniqueIndex('accounts_change_id_unique').on(t.changeId),
  ],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // SHA-256 of the whole key, hex. The key itself is never stored.
    keyHash: text('key_hash').notNull(),
    // The first characters of the key, so people can tell their keys apart.
    prefix: text('prefix').notNull(),
    // Its last four characters, shown beside the prefix (the dashboard's keys table). Null for keys
    // issued before this column: only their hash is left to derive it from.
    lastFour: text('last_four'),
    name: text('name'),
    scope: text('scope', { enum: ['read', 'read_write'] }).notNull().default('read_write'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at'),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_unique').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId, t.id),
    check('api_keys_scope_check', sql`${t.scope} in ('read', 'read_write')`),
  ],
);

// US states and DC by FIPS code; rows are seeded by a migration (drizzle/0001_seed_states.sql).
export const states = sqliteTable('states', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
});

export const scenarios = sqliteTable(
  'scenarios',
  {
    // AUTOINCREMENT: ids are never reused, so a cursor id keeps meaning after deletes.
    id: integer('id').primaryKey({ autoIncrement: true }),
    token: text('token').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    stateId: integer('state_id')
      .notNull()
      .references(() => states.id),
    // The validated scenario_data as JSON text (list form: token as a string).
    scenarioData: text('scenario_data').notNull(),
    // Bumped by every save; the ETag and If-Match compare against it.
    version: integer('version').notNull().default(1),
    // The event of the change that wrote this version; the event is recorded from the row by it.
    changeId: text('change_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    // The data's year, for the `year` filter: computed by SQLite from the stored JSON (a virtual
    // column, so every write path keeps it without naming it); the index below stores it.
    year: integer('year').generatedAlwaysAs(sql`json_extract(scenario_data, '$.year')`, { mode: 'virtual' }),
  },
  (t) => [
    uniqueIndex('scenarios_token_unique').on(t.token),
    // Keyset pagination: newest first within an account. updated_at rides along so the
    // `updated_since` filter is judged from the index, without reading rows it refuses.
    index('scenarios_account_id_idx').on(t.accountId, t.id, t.updatedAt),
    // The `state_id` and `year` filters: keyset pages of one state or one year.
    index('scenarios_account_state_idx').on(t.accountId, t.stateId, t.id),
    index('scenarios_account_year_idx').on(t.accountId, t.year, t.id),
  ],
);

// The `program` filter's index: one row per program of each scenario (its scenario_data.programs),
// so a page of the scenarios with one program is a keyset walk of (account_id, program,
// scenario_id). Kept by triggers on scenarios (drizzle/0008_scenario_filters.sql), so every write
// that stores scenario_data (create, save, restore, and any later one) keeps it in its own
// statement, hence its own batch; the rows go with their scenario (on delete cascade).
export const scenarioPrograms = sqliteTable(
  'scenario_programs',
  {
    scenarioId: integer('scenario_id')
      .notNull()
      .references(() => scenarios.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
    program: text('program').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scenarioId, t.program] }), index('scenario_programs_account_program_idx').on(t.accountId, t.program, t.scenarioId)],
);

// Every version of a scenario as its create, save or restore stored it, the newest
// SCENARIO_REVISIONS_KEPT per scenario (older ones are pruned in the batch of the change that
// pushes them out). Keyed by the scenario's row and the version its ETag names; the account is the
// scenario's, so every query reaches revisions through a scenario the caller owns.
// The data is stored as reverse patches (docs/decisions.md, "Compact history"): the current
// version's row has none (its data is the scenario's row), and each older one holds what to set in
// the next newer version's data to get its own. A trigger on scenarios writes the patch as a save
// or restore replaces the data (drizzle/0013_revision_patches_only.sql). A rowid table, not WITHOUT
// ROWID: a patch as large as the data (a save of a different household) would spill from a
// WITHOUT ROWID page to an overflow page of its own (docs/decisions.md, "Compact history").
export const scenarioRevisions = sqliteTable(
  'scenario_revisions',
  {
    scenarioId: integer('scenario_id')
      .notNull()
      .references(() => scenarios.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    stateId: integer('state_id')
      .notNull()
      .references(() => states.id),
    // When the change that made this version happened.
    createdAt: integer('created_at').notNull(),
    // JSON: [[path, value], …], SQLite JSON paths ("$.adult[0].wage_rate") and the value this
    // version holds there. Null for the current version.
    patch: text('patch'),
  },
  (t) => [primaryKey({ columns: [t.scenarioId, t.version] })],
);

// Replies to creates sent with an Idempotency-Key, kept 24 hours.
export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    // SHA-256 of the normalised request body: the same key with another body is a conflict.
    requestHash: text('request_hash').notNull(),
    scenarioToken: text('scenario_token').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: text('response_body').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.key] }),
    index('idempotency_records_created_idx').on(t.createdAt),
    // Deleting a scenario removes the stored replies that contain its data.
    index('idempotency_records_scenario_idx').on(t.accountId, t.scenarioToken),
  ],
);

export const EVENT_TYPES = ['scenario.created', 'scenario.saved', 'scenario.deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// Every change to a scenario, written in the same batch as the change (so none is lost and none is
// phantom), kept 30 days. Thin: the token and version, never the scenario's data. The id is drawn
// by the request and carried by its retries, so a retry after D1 lost the reply of its committed
// change finds its own event and answers as the first try would have (src/scenarios/workflows.ts).
export const events = sqliteTable(
  'events',
  {
    // Order of recording, for paging newest first.
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    // `evt_` + 32 hex digits.
    id: text('id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    token: text('token').notNull(),
    // The version the change made; null for a delete.
    version: integer('version'),
    createdAt: integer('created_at').notNull(),
    // When the queue consumer first took the event for delivery (src/webhooks/delivery.ts). Still
    // null a few minutes after the change: the Worker stopped between the commit and the queue
    // send, and the cron queues it (src/webhooks/requeue.ts).
    dispatchedAt: integer('dispatched_at'),
  },
  (t) => [
    uniqueIndex('events_id_unique').on(t.id),
    index('events_account_seq_idx').on(t.accountId, t.seq),
    // GET /events?type=: a page costs the same however rare the type.
    index('events_account_type_seq_idx').on(t.accountId, t.type, t.seq),
    index('events_created_idx').on(t.createdAt),
    // The cron's search for events never queued: only those rows are in it.
    index('events_undispatched_idx').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
  ],
);

// Where an account wants its events POSTed (at most WEBHOOK_ENDPOINTS_PER_ACCOUNT). The secret
// signs every delivery (Standard Webhooks), so it cannot be hashed: it is stored sealed (AES-GCM
// under a key of the WEBHOOK_SECRET_KEYS Worker secret, src/webhooks/secret-box.ts), shown once
// (at creation or rotation) and never returned again.
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    // Order of creation, for listing newest first.
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    // `we_` + 32 hex digits.
    id: text('id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    // JSON array of event types.
    eventTypes: text('event_types').notNull(),
    description: text('description'),
    // The signing secret (`whsec_` + base64 of 32 random bytes), sealed: base64 of the AES-GCM
    // nonce and ciphertext, under the key `secret_key_id` names. A null key id marks a secret
    // stored before sealing (plaintext); the hourly cron seals those, and re-seals secrets of a
    // key that is no longer the first of WEBHOOK_SECRET_KEYS.
    secret: text('secret').notNull(),
    secretKeyId: text('secret_key_id'),
    // The secret before the last rotation, sealed the same way, and when it stops signing
    // deliveries (null: there is none).
    previousSecret: text('previous_secret'),
    previousSecretKeyId: text('previous_secret_key_id'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    // `disabled` after every attempt has failed for 3 days (or by the dashboard): no deliveries.
    status: text('status', { enum: ['enabled', 'disabled'] }).notNull().default('enabled'),
    // The first failed attempt since the last answered one; null while the endpoint answers.
    failingSince: integer('failing_since'),
    createdAt: integer('created_at').notNull(),
  },
  // No CHECK on status: adding one to an existing table means rebuilding it, and dropping the old
  // table would take its delivery attempts with it (on delete cascade). Only this code writes it.
  (t) => [uniqueIndex('webhook_endpoints_id_unique').on(t.id), index('webhook_endpoints_account_idx').on(t.accountId, t.seq)],
);

// Every delivery attempt of an event to an endpoint, for GET /webhook_endpoints/{id}/deliveries;
// they go with their endpoint, and the cron prunes them with the events (30 days).
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    // No reference: the event may be pruned before its attempts.
    eventId: text('event_id').notNull(),
    // 1 for the first attempt of this event to this endpoint.
    attempt: integer('attempt').notNull(),
    // The receiver's HTTP status, or null when there was none (then `error` says why).
    status: integer('status'),
    error: text('error'),
    // 1 on the last attempt once the message went to the dead-letter queue: no more attempts.
    deadLettered: integer('dead_lettered').notNull().default(0),
    // The queue message's id and attempt number: recording the same attempt again (a retry after
    // D1 lost the reply) adds no row. Null for attempts recorded before it was.
    attemptKey: text('attempt_key'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_attempt_key_unique').on(t.attemptKey),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_event_idx').on(t.endpointId, t.eventId),
    index('webhook_deliveries_created_idx').on(t.createdAt),
  ],
);

// Client addresses refused until `until` after too many failed authentications (the Workers
// rate-limit binding cannot be asked without counting, so the refusal lives here). Every request
// from such an address is answered 429 before any credential is judged: a correct one too.
export const authThrottles = sqliteTable(
  'auth_throttles',
  {
    address: text('address').primaryKey(),
    until: integer('until').notNull(),
  },
  // The hourly prune removes lapsed rows by it.
  (t) => [index('auth_throttles_until_idx').on(t.until)],
);

// What a change that may leave no row behind did (an endpoint's delete, a secret's rotation), by
// the id its request drew: a retry after D1 lost the reply of the committed change finds it here
// and answers as the first try would have (a 204, not a 404). Kept 24 hours (the hourly cron).
export const writeReceipts = sqliteTable(
  'write_receipts',
  {
    id: text('id').primaryKey(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('write_receipts_created_idx').on(t.createdAt)],
);

// The directory of accounts, kept in the first database only (the table exists in every database,
// as they all take the same migrations, and stays empty in the others): which database holds the
// account of an e-mail address. It makes e-mail addresses unique across databases (a create claims
// its address here first) and is where the placement counts accounts per database. Look-ups that
// start from an id or an API key never need it: those name their database themselves.
export const accountDirectory = sqliteTable(
  'account_directory',
  {
    email: text('email').primaryKey(),
    // The database's index in wrangler.toml's list (0 is DB).
    database: integer('database').notNull(),
    // The id of the admin request that claimed the address: its own retry finds its claim.
    changeId: text('change_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('account_directory_email_unique').on(sql`lower(${t.email})`), index('account_directory_database_idx').on(t.database)],
);

// Read-only links to one scenario for people without a key (GET /shared/{secret}). Only a hash of
// the link's secret is stored; the link goes with its scenario (on delete cascade).
export const shareLinks = sqliteTable(
  'share_links',
  {
    // Order of creation, for listing newest first.
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    // `sl_` + 32 hex digits, drawn by the create request (its retries carry it).
    id: text('id').notNull(),
    scenarioId: integer('scenario_id')
      .notNull()
      .references(() => scenarios.id, { onDelete: 'cascade' }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // SHA-256 (hex) of the secret in the link's URL.
    secretHash: text('secret_hash').notNull(),
    // 1: the page shows the adults' nicknames.
    showNicknames: integer('show_nicknames').notNull().default(0),
    views: integer('views').notNull().default(0),
    lastViewedAt: integer('last_viewed_at'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    uniqueIndex('share_links_id_unique').on(t.id),
    uniqueIndex('share_links_secret_hash_unique').on(t.secretHash),
    index('share_links_scenario_idx').on(t.scenarioId, t.seq),
  ],
);

// How large each database is, in bytes, as D1 itself last reported it (`meta.size_after`, the
// database's size after a query): recorded by the writes that move it by a step or more
// (src/db/sizes.ts) and by the hourly cron. In every database the row of its own index is its own
// size, which the guarded writes read in their batch (507 insufficient_storage past
// DATABASE_MAX_BYTES); the first database also holds every other database's row, for placing new
// accounts by room (src/db/directory.ts).
export const databaseSizes = sqliteTable('database_sizes', {
  // The database's index in wrangler.toml's list (0 is DB).
  database: integer('database').primaryKey(),
  bytes: integer('bytes').notNull(),
  recordedAt: integer('recorded_at').notNull(),
});

export type Account = typeof accounts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type Scenario = typeof scenarios.$inferSelect;
export type ScenarioRevision = typeof scenarioRevisions.$inferSelect;
export type IdempotencyRecord = typeof idempotencyRecords.$inferSelect;
export type KeyScope = ApiKey['scope'];
export type Event = typeof events.$inferSelect;
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type ShareLink = typeof shareLinks.$inferSelect;

// Moves of an account between databases (src/moves/, docs/decisions.md "Moving an account"), one
// row per account in each database a move touched. Where the account leaves: `copying`, then
// `paused` (writes answered 503 while the last differences are copied and checked), then `moved`
// (the forwarding: `database` is where the account is now). Where it arrives: `arrived`
// (`database` is this database: new key ids follow its block, api-keys.ts `newKeyId`). A database
// the account left earlier keeps `moved`, re-pointed at every later move, so a forward is one hop.
// No foreign key: the account's rows here are removed once the copy is verified.
export const accountMoves = sqliteTable('account_moves', {
  accountId: integer('account_id').primaryKey(),
  database: integer('database').notNull(),
  state: text('state', { enum: ['copying', 'paused', 'moved', 'arrived'] }).notNull(),
  // Where the copy has got to (JSON, src/moves/mover.ts), so a re-run carries on from there.
  progress: text('progress'),
  startedAt: integer('started_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

// What still names a moved account in the database it left: the SHA-256 of each of its API keys,
// dashboard sessions and share links' secrets (which name this database), and the ids of its keys
// (`key_id`, so an id is never given out here again). A key, session or link found here is
// forwarded to the database its account's `account_moves` row names: one extra round trip.
export const movedRefs = sqliteTable(
  'moved_refs',
  {
    ref: text('ref').primaryKey(),
    accountId: integer('account_id').notNull(),
    keyId: integer('key_id'),
  },
  (t) => [index('moved_refs_account_idx').on(t.accountId), index('moved_refs_key_idx').on(t.keyId)],
);

export type AccountMove = typeof accountMoves.$inferSelect;
