// A share link's secret: 43 base64url characters whose first names the database holding the
// scenario (A is DB, B DB_2, …) and the other 42 are random (252 bits), the scheme of the
// dashboard's session ids (src/dashboard/session.ts), so a view goes straight to the right database
// in its one round trip. Only its SHA-256 is stored. No imports: the API's routes and the page share it.

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export const SHARE_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** A new secret for a link to a scenario on database `database` (its index; 0 is DB). */
export function newShareSecret(database: number): string {
  return BASE64URL[database] + base64url(crypto.getRandomValues(new Uint8Array(32))).slice(1);
}

/** The database a secret names (its index), or -1 for a character that names none. */
export function databaseOfShareSecret(secret: string): number {
  return BASE64URL.indexOf(secret[0] ?? '');
}

/** A link's id: `sl_` + 32 hex digits, drawn once per create request and carried by its retries. */
export function newShareLinkId(): string {
  return `sl_${crypto.randomUUID().replaceAll('-', '')}`;
}

export const SHARE_LINK_ID_PATTERN = /^sl_[0-9a-f]{32}$/;
