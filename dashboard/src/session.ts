// Sessions and sign-in links with Web Crypto: random ids (256 bits), stored only as their SHA-256,
// and the form token of a session derived from its id. Why not a library: see docs/dashboard.md.
import { sha256Hex } from '../../src/auth/api-key.ts';

export const SESSION_COOKIE = '__Host-session';
/** A session ends after 7 days without use, and 30 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
/** A sign-in link works once, within 15 minutes. */
export const LINK_TTL_MS = 15 * 60 * 1000;
/** Live links one address may hold: a bound on the mail anyone can have sent to it. */
export const MAX_LIVE_LINKS = 5;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** 32 random bytes, base64url: a session id or a sign-in link's token. */
export function newSecret(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A session id or link token of an account on database `database` (docs/decisions.md, "Capacity
 * past one database"): its first character names the database (A is DB, B DB_2, …), the other 42
 * are random (252 bits), so a page goes straight to the account's database in its one round trip.
 * The same length and characters as before, so nothing that checks their shape changes.
 */
export function newSecretOn(database: number): string {
  return BASE64URL[database] + newSecret().slice(1);
}

/** Set by this Worker on the second try of a moved account's session (moved.ts), never taken from a client: its database. */
export const SESSION_DATABASE_HEADER = 'X-Dashboard-Session-Database';

/** The database a session id or link token names (its index; 0 is DB). */
export function databaseOfSecret(secret: string): number {
  return Math.max(0, BASE64URL.indexOf(secret[0] ?? 'A'));
}

export const hashSecret = sha256Hex;

/**
 * The session's form token: a hash of its id under a label of its own, so it is fixed for the
 * session, needs no storage, and cannot be worked out without the cookie (nor from the stored hash).
 */
export async function formToken(sessionId: string): Promise<string> {
  return sha256Hex(`dashboard form token:${sessionId}`);
}

/** Compares without an early exit, so the time taken says nothing of where they differ. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Set-Cookie for a new session: `__Host-` (Secure, Path=/, no Domain), HttpOnly, SameSite=Lax. */
export function sessionCookie(sessionId: string): string {
  return `${SESSION_COOKIE}=${sessionId}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}; Path=/; Secure; HttpOnly; SameSite=Lax`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax`;
}

/** The session cookie's value, if it has the shape of one. */
export function sessionIdFrom(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return null;
}

/**
 * The rate limiters' key for a client address: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber's allocation, which it can fill with addresses at will).
 */
export function addressKey(address: string | null): string {
  if (!address) return 'unknown';
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...headGroups, ...Array(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups] : headGroups;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
