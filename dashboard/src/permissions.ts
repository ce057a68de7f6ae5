// Who may do what in the dashboard: the one permission table. The server enforces it inside each
// change's own batch (db/statements.ts binds `roles`, the roles this table allows, into the session
// check of every statement that writes, so a refused role's batch changes nothing), answers 403,
// and the pages hide what a role cannot do. Every page reads with every role. Imports nothing.

export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Every change the dashboard makes, and the roles that may make it. */
export const PERMISSIONS = {
  'keys.create': ['owner', 'developer'],
  'keys.roll': ['owner', 'developer'],
  'keys.revoke': ['owner', 'developer'],
  'webhooks.create': ['owner', 'developer'],
  'webhooks.rotate': ['owner', 'developer'],
  'webhooks.status': ['owner', 'developer'],
  'webhooks.delete': ['owner', 'developer'],
  'webhooks.resend': ['owner', 'developer'],
  'members.invite': ['owner'],
  'members.revoke_invitation': ['owner'],
  'members.role': ['owner'],
  'members.remove': ['owner'],
  // The account's API version (what its requests without API-Version get): an upgrade or a rollback.
  'account.api_version': ['owner'],
  // One's own: every member may.
  'members.leave': ['owner', 'developer', 'viewer'],
  'account.switch': ['owner', 'developer', 'viewer'],
  'sessions.sign_out_everywhere': ['owner', 'developer', 'viewer'],
  'passkeys.manage': ['owner', 'developer', 'viewer'],
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof PERMISSIONS;

export function may(role: Role | null | undefined, action: Action): boolean {
  return role !== null && role !== undefined && (PERMISSIONS[action] as readonly Role[]).includes(role);
}

export const isRole = (text: string | undefined): text is Role => (ROLES as readonly string[]).includes(text ?? '');

/** The roles bound into a statement's session check (a JSON array, read with json_each): those `action` allows, or every role to read. */
export const rolesFor = (action: Action | 'read'): string => JSON.stringify(action === 'read' ? ROLES : PERMISSIONS[action]);

export const ROLE_TEXT: Record<Role, string> = {
  owner: 'Owner: everything, members included',
  developer: 'Developer: keys, webhooks and resends',
  viewer: 'Viewer: reads every page, changes nothing',
};
