// WebAuthn checks for passkeys, with @oslojs/webauthn (parsing: client data, the attestation
// object's CBOR, authenticator data, the COSE key) and Web Crypto (the signature). Why this library
// and not @simplewebauthn/server: docs/decisions.md, "Passkeys". The relying party is
// PUBLIC_ORIGIN (its origin, its hostname as the RP id), never the request's Host header.
// Only ES256 (P-256) keys: what every platform authenticator offers, and all the options ask for.
// The key and signature encodings (SEC1, DER) are done here in a few lines: @oslojs/crypto's would
// add its ASN.1 parser and every curve (25 KiB) to a bundle with a cap.
import {
  ClientDataType,
  coseAlgorithmES256,
  coseEllipticCurveP256,
  COSEKeyType,
  createAssertionSignatureMessage,
  parseAttestationObject,
  parseAuthenticatorData,
  parseClientDataJSON,
} from '@oslojs/webauthn';

const encodeBase64urlNoPadding = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
function decodeBase64urlIgnorePadding(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*=*$/.test(text)) throw new Error('not base64url');
  return Uint8Array.from(atob(text.replace(/=+$/, '').replaceAll('-', '+').replaceAll('_', '/')), (ch) => ch.charCodeAt(0));
}

/** A P-256 coordinate as its 32 bytes, big-endian. */
function coordinate(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--, value >>= 8n) out[i] = Number(value & 255n);
  if (value !== 0n) throw new PasskeyError('not a P-256 coordinate');
  return out;
}

/** An ECDSA signature as authenticators send it (DER: SEQUENCE of two INTEGERs) → r‖s, 32 bytes each (Web Crypto's form). */
function rawSignature(der: Uint8Array): Uint8Array {
  const fail = () => new PasskeyError('bad signature encoding');
  if (der[0] !== 0x30 || der[1] !== der.length - 2) throw fail();
  const out = new Uint8Array(64);
  let at = 2;
  for (const offset of [0, 32]) {
    if (der[at] !== 0x02) throw fail();
    const length = der[at + 1]!;
    let value = der.subarray(at + 2, at + 2 + length);
    if (value.length !== length || length === 0) throw fail();
    while (value.length > 32 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) throw fail();
    out.set(value, offset + 32 - value.length);
    at += 2 + length;
  }
  if (at !== der.length) throw fail();
  return out;
}

/** A challenge is answered within 5 minutes, once. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export interface RelyingParty {
  /** PUBLIC_ORIGIN, e.g. https://scenarios.example (http://localhost:8787 locally). */
  origin: string;
  /** Its hostname: WebAuthn refuses an IP address as an RP id, hence localhost for npm start. */
  id: string;
}

export function relyingParty(publicOrigin: string): RelyingParty {
  return { origin: new URL(publicOrigin).origin, id: new URL(publicOrigin).hostname };
}

/** Any refusal of what the browser sent: the page says "that did not work" and changes nothing. */
export class PasskeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasskeyError';
  }
}

export const newChallenge = () => encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)));

/** The user handle names the member's database, so a sign-in with no e-mail typed goes straight to it. */
export const userHandle = (database: number, memberId: number) => encodeBase64urlNoPadding(new TextEncoder().encode(`d${database}m${memberId}`));

export function databaseOfHandle(handle: string): number | null {
  try {
    const match = /^d(\d{1,3})m\d{1,16}$/.exec(new TextDecoder().decode(decodeBase64urlIgnorePadding(handle)));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const bytes = (text: unknown): Uint8Array => {
  if (typeof text !== 'string' || text.length === 0 || text.length > 8192) throw new PasskeyError('missing field');
  try {
    return decodeBase64urlIgnorePadding(text);
  } catch {
    throw new PasskeyError('not base64url');
  }
};

/** The browser's credential, as the dashboard's script sends it (base64url fields). */
function readJson(text: string): { id: string; response: Record<string, unknown> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PasskeyError('not JSON');
  }
  const value = parsed as { id?: unknown; response?: unknown };
  if (typeof value?.id !== 'string' || !/^[A-Za-z0-9_-]{16,1365}$/.test(value.id) || typeof value.response !== 'object' || value.response === null) {
    throw new PasskeyError('not a credential');
  }
  return { id: value.id, response: value.response as Record<string, unknown> };
}

/** Checks the client data: its type, its origin (ours), and gives its challenge (base64url). */
function clientData(encoded: Uint8Array, type: ClientDataType, rp: RelyingParty): string {
  let data;
  try {
    data = parseClientDataJSON(encoded);
  } catch {
    throw new PasskeyError('bad client data');
  }
  if (data.type !== type) throw new PasskeyError('wrong ceremony');
  if (data.origin !== rp.origin || data.crossOrigin === true) throw new PasskeyError('wrong origin');
  return encodeBase64urlNoPadding(data.challenge);
}

export interface Registration {
  credentialId: string;
  /** SEC1 uncompressed P-256 point, base64url. */
  publicKey: string;
  signCount: number;
  /** The challenge it answers (base64url): the caller checks it is ours, unused, this session's. */
  challenge: string;
}

/** A registration ("none" attestation accepted: we trust the key, not the authenticator's make). */
export function verifyRegistration(json: string, rp: RelyingParty): Registration {
  const { id, response } = readJson(json);
  const challenge = clientData(bytes(response.clientDataJSON), ClientDataType.Create, rp);
  let parsed;
  try {
    parsed = parseAttestationObject(bytes(response.attestationObject));
  } catch {
    throw new PasskeyError('bad attestation object');
  }
  const data = parsed.authenticatorData;
  if (!data.verifyRelyingPartyIdHash(rp.id)) throw new PasskeyError('wrong RP id');
  if (!data.userPresent) throw new PasskeyError('user not present');
  const credential = data.credential;
  if (!credential || encodeBase64urlNoPadding(credential.id) !== id) throw new PasskeyError('credential id differs');
  const key = credential.publicKey;
  try {
    if (key.type() !== COSEKeyType.EC2 || key.algorithm() !== coseAlgorithmES256) throw new PasskeyError('not ES256');
    const { curve, x, y } = key.ec2();
    if (curve !== coseEllipticCurveP256) throw new PasskeyError('not P-256');
    const sec1 = new Uint8Array(65);
    sec1[0] = 0x04;
    sec1.set(coordinate(x), 1);
    sec1.set(coordinate(y), 33);
    return { credentialId: id, publicKey: encodeBase64urlNoPadding(sec1), signCount: data.signatureCounter, challenge };
  } catch (error) {
    throw error instanceof PasskeyError ? error : new PasskeyError('bad public key');
  }
}

export interface Assertion {
  credentialId: string;
  userHandle: string;
  challenge: string;
  signCount: number;
  /** The signed bytes and signature, checked against the stored key by `verifyAssertion`. */
  message: Uint8Array;
  signature: Uint8Array;
}

/** A sign-in's assertion, read and checked for everything but the key (which is stored by credential id). */
export function readAssertion(json: string, rp: RelyingParty): Assertion {
  const { id, response } = readJson(json);
  const clientDataJSON = bytes(response.clientDataJSON);
  const challenge = clientData(clientDataJSON, ClientDataType.Get, rp);
  const authenticatorData = bytes(response.authenticatorData);
  let data;
  try {
    data = parseAuthenticatorData(authenticatorData);
  } catch {
    throw new PasskeyError('bad authenticator data');
  }
  if (!data.verifyRelyingPartyIdHash(rp.id)) throw new PasskeyError('wrong RP id');
  if (!data.userPresent) throw new PasskeyError('user not present');
  if (typeof response.userHandle !== 'string') throw new PasskeyError('no user handle');
  return {
    credentialId: id,
    userHandle: response.userHandle,
    challenge,
    signCount: data.signatureCounter,
    message: createAssertionSignatureMessage(authenticatorData, clientDataJSON),
    signature: bytes(response.signature),
  };
}

/**
 * The signature, by the stored key; and the counter, which must move forward when the
 * authenticator keeps one (a counter that does not is a cloned key's sign). Synced passkeys send 0.
 */
export async function verifyAssertion(assertion: Assertion, stored: { publicKey: string; signCount: number }): Promise<void> {
  const raw = rawSignature(assertion.signature);
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey('raw', decodeBase64urlIgnorePadding(stored.publicKey), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  } catch {
    throw new PasskeyError('bad stored key');
  }
  if (!(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, assertion.message))) throw new PasskeyError('bad signature');
  if ((assertion.signCount !== 0 || stored.signCount !== 0) && assertion.signCount <= stored.signCount) throw new PasskeyError('counter did not move: a cloned authenticator?');
}
