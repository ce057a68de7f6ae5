// What the page after a change shows once: a change's batch stores it with the session (the
// `flash` column), answers 303, and the page the browser then asks for reads and clears it in its
// own batch. A key or secret shown once so survives the redirect without ever entering a URL, and a
// reload of that page shows it no more. It is sealed (AES-GCM) under a key derived from the session
// id, which only the browser's cookie holds (D1 has the id's hash): a copy of the database cannot
// open it, and another session cannot either.

/** What a change leaves for the next page. Texts are rendered from the rows that page reads. */
export type Flash =
  | { kind: 'key.created'; key: string }
  | { kind: 'key.rolled'; key: string; from: number }
  | { kind: 'key.revoked'; keyId: number }
  | { kind: 'endpoint.created'; secret: string; endpointId: string }
  | { kind: 'endpoint.secret_rotated'; secret: string; previousExpiresAt: number | null }
  | { kind: 'endpoint.enabled' }
  | { kind: 'endpoint.disabled' }
  | { kind: 'endpoint.deleted'; endpointId: string }
  | { kind: 'delivery.resent'; eventId: string }
  | { kind: 'member.invited'; email: string }
  | { kind: 'invitation.revoked' }
  | { kind: 'member.role_changed'; memberId: number }
  | { kind: 'member.removed' }
  | { kind: 'passkey.registered'; name: string }
  | { kind: 'passkey.renamed' }
  | { kind: 'passkey.removed' };

async function flashKey(sessionId: string): Promise<CryptoKey> {
  const bytes = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`dashboard flash:${sessionId}`));
  return crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

export async function sealFlash(sessionId: string, flash: Flash): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await flashKey(sessionId), new TextEncoder().encode(JSON.stringify(flash))));
  return `${toBase64(iv)}.${toBase64(sealed)}`;
}

/** The flash, or null when there is none or it does not open under this session. */
export async function openFlash(sessionId: string, text: string | null): Promise<Flash | null> {
  if (!text) return null;
  const [iv, sealed] = text.split('.');
  if (!iv || !sealed) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv) }, await flashKey(sessionId), fromBase64(sealed));
    return JSON.parse(new TextDecoder().decode(plain)) as Flash;
  } catch {
    return null;
  }
}
