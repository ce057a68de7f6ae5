// A software passkey authenticator for the tests: an ES256 key pair from crypto.subtle, and the
// bytes a browser would send, built here by hand (authenticator data, client data JSON, a "none"
// attestation object in CBOR, DER-encoded assertion signatures), so the dashboard's real checks
// (@oslojs/webauthn and Web Crypto) verify them end to end. Nothing of the dashboard's code is used.

const encoder = new TextEncoder();

export const b64u = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
export const fromB64u = (text: string) => Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};
const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));

// CBOR (RFC 8949), just what an attestation object and a COSE key need.
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
function head(major: number, n: number): Uint8Array {
  if (n < 24) return new Uint8Array([(major << 5) | n]);
  if (n < 256) return new Uint8Array([(major << 5) | 24, n]);
  return new Uint8Array([(major << 5) | 25, n >> 8, n & 255]);
}
export function cbor(value: Cbor): Uint8Array {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = encoder.encode(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  return concat(head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)]));
}

/** An ECDSA signature, raw r‖s (Web Crypto) → DER (what authenticators send). */
function der(raw: Uint8Array): Uint8Array {
  const int = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = bytes.slice(i);
    if (v[0]! & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

export interface CreateOptions {
  challenge: string;
  rp: { id: string };
  user: { id: string };
}

export interface Overrides {
  origin?: string;
  rpId?: string;
  type?: string;
  challenge?: string;
  counter?: number;
  userHandle?: string;
}

/** One authenticator holding one discoverable credential (after `create`). */
export async function softwareAuthenticator(origin = 'https://scenarios.test') {
  const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const credentialId = crypto.getRandomValues(new Uint8Array(16));
  let counter = 0;
  let handle: string | null = null;
  let rpId = 'scenarios.test';
  const clientData = (type: string, challenge: string, o: Overrides) =>
    encoder.encode(JSON.stringify({ type: o.type ?? type, challenge: o.challenge ?? challenge, origin: o.origin ?? origin, crossOrigin: false }));
  const flagsAndCount = (flags: number, count: number) => new Uint8Array([flags, count >>> 24, (count >>> 16) & 255, (count >>> 8) & 255, count & 255]);

  return {
    id: b64u(credentialId),
    /** navigator.credentials.create's answer, as the dashboard's script sends it (JSON). */
    async create(options: CreateOptions, o: Overrides = {}): Promise<string> {
      rpId = options.rp.id;
      handle = options.user.id;
      const jwk = (await crypto.subtle.exportKey('jwk', keys.publicKey)) as JsonWebKey;
      const cose = cbor(
        new Map<Cbor, Cbor>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, fromB64u(jwk.x!)],
          [-3, fromB64u(jwk.y!)],
        ]),
      );
      const idLength = new Uint8Array([0, credentialId.length]);
      // Flags: user present, user verified, attested credential data.
      const authData = concat(await sha256(encoder.encode(o.rpId ?? rpId)), flagsAndCount(0x45, counter), new Uint8Array(16), idLength, credentialId, cose);
      const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
      return JSON.stringify({ id: b64u(credentialId), response: { clientDataJSON: b64u(clientData('webauthn.create', options.challenge, o)), attestationObject: b64u(attestationObject) } });
    },
    /** navigator.credentials.get's answer (the counter moves forward unless told). */
    async get(options: { challenge: string; rpId: string }, o: Overrides = {}): Promise<string> {
      counter = o.counter ?? counter + 1;
      const clientDataJSON = clientData('webauthn.get', options.challenge, o);
      const authData = concat(await sha256(encoder.encode(o.rpId ?? options.rpId)), flagsAndCount(0x05, counter));
      const signed = concat(authData, await sha256(clientDataJSON));
      const signature = der(new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, signed)));
      return JSON.stringify({
        id: b64u(credentialId),
        response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: o.userHandle ?? handle },
      });
    },
  };
}
