// Standard Webhooks (standardwebhooks.com): secrets, and the signature of a delivery, with Web
// Crypto. A receiver verifies with any Standard Webhooks library (the tests use `standardwebhooks`).

const SECRET_PREFIX = 'whsec_';

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** A new endpoint id: `we_` + 32 hex digits. */
export function newEndpointId(): string {
  return `we_${crypto.randomUUID().replaceAll('-', '')}`;
}

/**
 * The `webhook-signature` header: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed
 * with the secret's bytes (the base64 after `whsec_`).
 */
export async function signDelivery(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const keyBytes = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
