// What moving an account copies (src/moves/mover.ts): every table holding its rows, in the order
// their foreign keys need, with what identifies a row in either database. Ids that each database
// numbers for itself (a scenario's id, an event's seq) are renumbered by the copy, so a row is
// known by its natural key (a token, an event id) and a child names its parent by the parent's.
// Account and key ids are kept: they are unique across databases (databases.ts, api-keys.ts).
// Column lists are written out here (the API bundle's drizzle-lite keeps no column lists) and
// test/moves.test.ts holds them to the tables D1 has. No imports: the dashboard's tables are named,
// not imported (the API never imports the dashboard).

/** A column holding a parent's own id: copied as the parent's natural key, written by looking it up. */
export interface ParentRef {
  table: string;
  /** The parent's natural key column. */
  key: string;
  /** The parent's key is unique only within the account (a member's e-mail). */
  scoped?: boolean;
}

export interface MovedTable {
  name: string;
  /** Every stored column copied, in order (generated columns and `surrogate` left out). */
  columns: string[];
  /** The natural key: the columns (of `columns`) that name a row in either database. */
  key: string[];
  /** The id each database numbers for itself: not copied; the copy keeps its order. */
  surrogate?: string;
  parents?: Record<string, ParentRef>;
  /** The account's rows, a condition on `t` with one `?` for the account id. */
  where: string;
  /**
   * Rows that name the database (keys, dashboard sessions, share links) or hang on them: copied only
   * in the write pause, so nothing reaches the new copy before it is whole.
   */
  late?: boolean;
  /** Kept by triggers from another table's rows: compared, never copied. */
  derived?: boolean;
}

const byAccount = 't.account_id = ?';

export const MOVED_TABLES: readonly MovedTable[] = [
  {
    name: 'accounts',
    columns: ['id', 'name', 'email', 'created_at', 'scenario_count', 'change_id', 'api_version', 'previous_api_version', 'api_version_changed_at'],
    key: ['id'],
    where: 't.id = ?',
  },
  {
    name: 'scenarios',
    columns: ['token', 'account_id', 'state_id', 'scenario_data', 'version', 'change_id', 'created_at', 'updated_at'],
    key: ['token'],
    surrogate: 'id',
    where: byAccount,
  },
  {
    name: 'scenario_programs',
    columns: ['scenario_id', 'account_id', 'program'],
    key: ['scenario_id', 'program'],
    parents: { scenario_id: { table: 'scenarios', key: 'token' } },
    where: byAccount,
    derived: true,
  },
  {
    name: 'scenario_revisions',
    columns: ['scenario_id', 'version', 'state_id', 'created_at', 'patch'],
    key: ['scenario_id', 'version'],
    parents: { scenario_id: { table: 'scenarios', key: 'token' } },
    where: 't.scenario_id in (select id from scenarios where account_id = ?)',
  },
  {
    name: 'idempotency_records',
    columns: ['account_id', 'key', 'request_hash', 'scenario_token', 'response_status', 'response_body', 'created_at'],
    key: ['key'],
    where: byAccount,
  },
  {
    name: 'events',
    columns: ['id', 'account_id', 'type', 'token', 'version', 'created_at', 'dispatched_at'],
    key: ['id'],
    surrogate: 'seq',
    where: byAccount,
  },
  {
    name: 'webhook_endpoints',
    columns: [
      'id', 'account_id', 'url', 'event_types', 'description', 'secret', 'secret_key_id', 'previous_secret', 'previous_secret_key_id',
      'previous_secret_expires_at', 'status', 'failing_since', 'created_at',
    ],
    key: ['id'],
    surrogate: 'seq',
    where: byAccount,
  },
  {
    name: 'webhook_deliveries',
    columns: ['endpoint_id', 'event_id', 'attempt', 'status', 'error', 'dead_lettered', 'attempt_key', 'created_at'],
    key: ['endpoint_id', 'event_id', 'attempt'],
    surrogate: 'id',
    where: 't.endpoint_id in (select id from webhook_endpoints where account_id = ?)',
  },
  {
    name: 'dashboard_members',
    columns: ['account_id', 'email', 'role', 'created_at'],
    key: ['email'],
    surrogate: 'id',
    where: byAccount,
  },
  {
    name: 'dashboard_invitations',
    columns: ['token_hash', 'account_id', 'email', 'role', 'invited_by', 'created_at', 'expires_at', 'used_at', 'revoked_at', 'session_hash'],
    key: ['token_hash'],
    where: byAccount,
  },
  {
    name: 'dashboard_audit',
    columns: ['id', 'account_id', 'actor', 'action', 'target', 'address', 'user_agent', 'created_at'],
    key: ['id'],
    surrogate: 'seq',
    where: byAccount,
  },
  {
    name: 'dashboard_passkeys',
    columns: ['id', 'member_id', 'name', 'public_key', 'sign_count', 'created_at', 'last_used_at'],
    key: ['id'],
    parents: { member_id: { table: 'dashboard_members', key: 'email', scoped: true } },
    where: 't.member_id in (select id from dashboard_members where account_id = ?)',
  },
  {
    name: 'api_keys',
    columns: ['id', 'account_id', 'key_hash', 'prefix', 'last_four', 'name', 'scope', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'],
    key: ['id'],
    where: byAccount,
    late: true,
  },
  {
    name: 'dashboard_key_creators',
    columns: ['key_id', 'email'],
    key: ['key_id'],
    where: 't.key_id in (select id from api_keys where account_id = ?)',
    late: true,
  },
  {
    name: 'share_links',
    columns: ['id', 'scenario_id', 'account_id', 'secret_hash', 'show_nicknames', 'views', 'last_viewed_at', 'created_at', 'expires_at', 'revoked_at'],
    key: ['id'],
    surrogate: 'seq',
    parents: { scenario_id: { table: 'scenarios', key: 'token' } },
    where: byAccount,
    late: true,
  },
  {
    name: 'dashboard_sessions',
    columns: ['id_hash', 'account_id', 'created_at', 'idle_expires_at', 'expires_at', 'flash', 'flash_read_by', 'member_id'],
    key: ['id_hash'],
    parents: { member_id: { table: 'dashboard_members', key: 'email', scoped: true } },
    where: byAccount,
    late: true,
  },
];

/** Tables a database may hold that belong to no account, or live minutes: not moved (the reason beside each). */
export const NOT_MOVED: Record<string, string> = {
  states: 'the same rows in every database',
  auth_throttles: 'client addresses, not accounts',
  database_sizes: "each database's size, not an account's",
  write_receipts: 'a retry of a change made before the move: 24 hours',
  account_directory: 'the first database only; the move updates its entries',
  account_moves: "the move's own record",
  moved_refs: "the move's own record",
  dashboard_sign_in_links: 'by e-mail, 15 minutes: a link asked for before the move is asked for again',
  dashboard_passkey_challenges: '5 minutes',
};
