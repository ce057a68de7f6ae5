// API key format: `scn_` + 30 random base62 characters (~178 bits) + 6 base62 characters of a
// CRC-32 of everything before them. The prefix lets secret scanners find leaked keys; the checksum
// lets us refuse a mistyped or made-up key without touching the database. Only the SHA-256 of a
// key is stored. This module has no imports, so the Node scripts can use it as it is.
//
// The key also names the D1 database its account lives in (docs/decisions.md, "Capacity past one
// database"), so a request goes straight to it in its one round trip: the six checksum characters
// hold CRC-32 + 2^32 × database (62^6 > 13 × 2^32, so databases 0 to 12). Keys issued before (and every key of the first
// database) have a checksum below 2^32: they name database 0, unchanged. A changed checksum
// character moves the value by k × 62^i, never a multiple of 2^32 (62^i has at most 2^5 as a
// factor), so a typo there cannot turn into another database with a matching CRC.
const KEY_PREFIX = 'scn_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const DISPLAY_LENGTH = KEY_PREFIX.length + 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Databases a key can name: 62^6 / 2^32 = 13.2. */
export const KEY_DATABASES = 13;
const CRC_RANGE = 2 ** 32;

function checksum(body: string, database: number): string {
  let n = crc32(body) + CRC_RANGE * database;
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  const bytes = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    // Rejection sampling: 248 = 4 × 62, so every character is equally likely.
    for (const b of bytes) if (b < 248 && out.length < length) out += BASE62[b % 62];
  }
  return out;
}

/** A new key of an account on `database` (its index in the list of databases; 0 is the first). */
export function generateApiKey(database = 0): string {
  if (!Number.isInteger(database) || database < 0 || database >= KEY_DATABASES) throw new RangeError(`A key can name databases 0 to ${KEY_DATABASES - 1}`);
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksum(body, database);
}

/**
 * The database a key names when it has our shape and its checksum holds, else `null`; says nothing
 * about whether the key exists.
 */
export function apiKeyDatabase(key: string): number | null {
  if (!KEY_PATTERN.test(key)) return null;
  let value = 0;
  for (let i = key.length - CHECKSUM_LENGTH; i < key.length; i++) value = value * 62 + BASE62.indexOf(key[i]!);
  const database = Math.floor(value / CRC_RANGE);
  if (database >= KEY_DATABASES || value - database * CRC_RANGE !== crc32(key.slice(0, -CHECKSUM_LENGTH))) return null;
  return database;
}

/** True when the key has our shape and its checksum holds; says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  return apiKeyDatabase(key) !== null;
}

/** The part of a key safe to show in lists, e.g. `scn_4fQ9xZ`. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

/** The key's last four characters (part of its checksum), shown beside the prefix in the dashboard. */
export function lastFour(key: string): string {
  return key.slice(-4);
}

// Stateless, so one per isolate serves every request; every request hashes its key.
const encoder = new TextEncoder();
/** Each byte's two hex digits, looked up instead of formatted 32 times a hash. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  let hex = '';
  for (const b of new Uint8Array(digest)) hex += HEX[b];
  return hex;
}

export const hashApiKey = sha256Hex;
