// Signed, expiring chart URLs, so a chart works in an <img> tag without the API key.
// sig = "<account id>.<base64url HMAC-SHA256 of chart:v1:<account id>:<token>:<exp>>": the account id
// travels in the signature so the chart query stays scoped to an account like every other.
import type { Bindings } from '../env.ts';

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();

function base64url(bytes: ArrayBuffer): string {
  let binary = '';
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

async function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/** The signing key: CHART_SIGNING_KEY, or else one derived from ADMIN_TOKEN (never the token itself). */
function signingKey(env: Bindings): Promise<CryptoKey> | null {
  const secret = env.CHART_SIGNING_KEY || (env.ADMIN_TOKEN ? `chart-url-signing:${env.ADMIN_TOKEN}` : '');
  if (!secret) return null;
  let key = keyCache.get(secret);
  if (!key) {
    key = importHmacKey(secret);
    keyCache.set(secret, key);
  }
  return key;
}

function message(accountId: number, token: string, exp: number): Uint8Array {
  return encoder.encode(`chart:v1:${accountId}:${token}:${exp}`);
}

export async function signChartUrl(env: Bindings, origin: string, accountId: number, token: string, now: number): Promise<string> {
  const ttl = Number(env.CHART_URL_TTL_SECONDS) > 0 ? Number(env.CHART_URL_TTL_SECONDS) : 3600;
  const exp = Math.floor(now / 1000) + ttl;
  const path = `${origin}/scenarios/${token}/chart.svg?exp=${exp}`;
  const key = signingKey(env);
  // Without any secret configured the URL cannot be signed; it is still well-formed and refused.
  if (!key) return `${path}&sig=unsigned`;
  const mac = await crypto.subtle.sign('HMAC', await key, message(accountId, token, exp));
  return `${path}&sig=${accountId}.${base64url(mac)}`;
}

export type ChartSignatureCheck = { ok: true; accountId: number } | { ok: false; reason: string };

/** Checks a chart URL's exp and sig; constant-time comparison through WebCrypto's verify. */
export async function verifyChartSignature(
  env: Bindings,
  token: string,
  exp: string | undefined,
  sig: string | undefined,
  now: number,
): Promise<ChartSignatureCheck> {
  if (!exp || !sig) return { ok: false, reason: 'The chart URL has no signature; take chart_img from the scenario' };
  const expSeconds = /^[0-9]{1,12}$/.test(exp) ? Number(exp) : NaN;
  const match = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/.exec(sig);
  const key = signingKey(env);
  if (!Number.isFinite(expSeconds) || !match || !key) return { ok: false, reason: 'The chart URL signature is not valid' };
  const accountId = Number(match[1]);
  const macText = match[2] ?? '';
  const mac = Uint8Array.from(atob(macText.replaceAll('-', '+').replaceAll('_', '/') + '='), (ch) => ch.charCodeAt(0));
  const valid = await crypto.subtle.verify('HMAC', await key, mac, message(accountId, token, expSeconds));
  if (!valid) return { ok: false, reason: 'The chart URL signature is not valid' };
  if (expSeconds * 1000 <= now) return { ok: false, reason: 'The chart URL has expired; fetch the scenario again for a fresh one' };
  return { ok: true, accountId };
}
