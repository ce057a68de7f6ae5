// Webhook signing secrets at rest: sealed with AES-GCM (Web Crypto) under a key of the
// WEBHOOK_SECRET_KEYS Worker secret, so a copy of the database alone cannot sign a delivery.
//
// WEBHOOK_SECRET_KEYS is a list of `<key id>:<base64 of 32 random bytes>`, separated by commas or
// white space. The first key seals every new secret; every key listed opens the secrets it sealed.
// Each row keeps the id of the key that sealed it beside the ciphertext, so the key can be rotated:
// put a new key first, keep the old one listed until the hourly cron has re-sealed every row under
// the new one (`resealSecrets`), then drop it. The endpoint id is the additional data of the
// seal, so a ciphertext copied to another row does not open there.
import { ApiError } from '../http/problem.ts';

export interface KeyRing {
  /** The id of the key new secrets are sealed with (the first listed). */
  currentId: string;
  keys: Map<string, CryptoKey>;
}

/** A secret as stored: the key id (null for a plaintext secret stored before sealing) and the text. */
export interface StoredSecret {
  keyId: string | null;
  sealed: string;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const NONCE_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The 500 of a deployment that cannot seal or open secrets: it names the secret, never a value. */
export function secretKeysMisconfigured(why: string): ApiError {
  return new ApiError(
    'internal_error',
    `This deployment cannot store webhook secrets: ${why}. The operator must set it (wrangler secret put WEBHOOK_SECRET_KEYS; see wrangler.toml)`,
  );
}

async function importRing(value: string): Promise<KeyRing> {
  const entries = value.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) throw secretKeysMisconfigured('the WEBHOOK_SECRET_KEYS secret is not set');
  const keys = new Map<string, CryptoKey>();
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon);
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(entry.slice(colon + 1).replaceAll('-', '+').replaceAll('_', '/'));
    } catch {
      bytes = new Uint8Array();
    }
    if (colon < 1 || !KEY_ID.test(id) || bytes.length !== 32 || keys.has(id)) {
      throw secretKeysMisconfigured('WEBHOOK_SECRET_KEYS must list distinct `<id>:<base64 of 32 bytes>` entries');
    }
    keys.set(id, await crypto.subtle.importKey('raw', bytes, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']));
  }
  return { currentId: entries[0]!.slice(0, entries[0]!.indexOf(':')), keys };
}

// Imported keys, per value of the secret: importing is the costly part, and the value is the
// deployment's, the same for every request of the isolate.
const rings = new Map<string, Promise<KeyRing>>();

/** The key ring of WEBHOOK_SECRET_KEYS; a 500 naming the secret when it is unset or malformed. */
export function keyRing(value: string | undefined): Promise<KeyRing> {
  if (!value?.trim()) return Promise.reject(secretKeysMisconfigured('the WEBHOOK_SECRET_KEYS secret is not set'));
  let ring = rings.get(value);
  if (!ring) {
    ring = importRing(value);
    // A malformed value is reported on every use, not cached as a rejected promise forever.
    ring.catch(() => rings.delete(value));
    rings.set(value, ring);
  }
  return ring;
}

/** Seals `secret` for the endpoint `endpointId` under the ring's current key. */
export async function sealSecret(ring: KeyRing, endpointId: string, secret: string): Promise<{ keyId: string; sealed: string }> {
  const key = ring.keys.get(ring.currentId)!;
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: encoder.encode(endpointId) }, key, encoder.encode(secret));
  const sealed = new Uint8Array(NONCE_BYTES + ciphertext.byteLength);
  sealed.set(nonce);
  sealed.set(new Uint8Array(ciphertext), NONCE_BYTES);
  return { keyId: ring.currentId, sealed: toBase64(sealed) };
}

/** The secret a row holds. A null key id is a plaintext secret stored before sealing. */
export async function openSecret(ring: KeyRing, endpointId: string, stored: StoredSecret): Promise<string> {
  if (stored.keyId === null) return stored.sealed;
  const key = ring.keys.get(stored.keyId);
  if (!key) throw secretKeysMisconfigured(`the key "${stored.keyId}" that sealed a stored secret is no longer in WEBHOOK_SECRET_KEYS`);
  const bytes = fromBase64(stored.sealed);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.subarray(0, NONCE_BYTES), additionalData: encoder.encode(endpointId) },
    key,
    bytes.subarray(NONCE_BYTES),
  );
  return decoder.decode(plain);
}

/** A new value for WEBHOOK_SECRET_KEYS (npm start, tests): one key under `id`. */
export function newKeyRingValue(id: string): string {
  return `${id}:${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}
