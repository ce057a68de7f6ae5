// Signed, expiring chart URLs, so a chart works in an <img> tag without the API key.
// sig = "<account id>.<base64url HMAC-SHA256 of chart:v1:<account id>:<token>:<exp>>": the account id
// travels in the signature so the chart query stays scoped to an account like every other.
// The key is CHART_SIGNING_KEY and nothing else: a key derived from another secret (the admin
// token) would let anyone holding one chart URL test guesses of that secret offline.
import type { Context } from 'hono';
import { readConfig, type AppEnv, type Bindings } from '../../env.ts';
import { requestOrigin } from '../../http/request.ts';
import { ApiError } from '../../http/problem.ts';

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();
/** 32 bytes of HMAC-SHA256 are 43 base64url characters. */
const MAC_BYTES = 32;
const EXP_PATTERN = /^[1-9][0-9]{0,11}$/;
const SIG_PATTERN = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Unpadded base64url, written directly (no binary string, btoa and three replacements per chart URL). */
function base64url(bytes: ArrayBuffer | Uint8Array): string {
  const b = new Uint8Array(bytes);
  let out = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = ((b[i] as number) << 16) | ((b[i + 1] as number) << 8) | (b[i + 2] as number);
    out += BASE64URL.charAt(n >> 18) + BASE64URL.charAt((n >> 12) & 63) + BASE64URL.charAt((n >> 6) & 63) + BASE64URL.charAt(n & 63);
  }
  if (i < b.length) {
    const n = ((b[i] as number) << 16) | ((b[i + 1] ?? 0) << 8);
    out += BASE64URL.charAt(n >> 18) + BASE64URL.charAt((n >> 12) & 63);
    if (i + 1 < b.length) out += BASE64URL.charAt((n >> 6) & 63);
  }
  return out;
}

function fromBase64url(text: string): Uint8Array {
  return Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (ch) => ch.charCodeAt(0));
}

/**
 * The deployment cannot sign chart_img without its own key. Said plainly (a 500 whose detail names
 * the secret, logged by the error handler) rather than signing with anything derived.
 */
function misconfigured(why: string): ApiError {
  return new ApiError('internal_error', `This deployment cannot sign chart URLs: ${why}. The operator must set it (wrangler secret put CHART_SIGNING_KEY)`);
}

/** The signing key, imported once per isolate. Throws when CHART_SIGNING_KEY is unset or is the admin token. */
function signingKey(env: Bindings): Promise<CryptoKey> {
  const secret = env.CHART_SIGNING_KEY;
  if (!secret) throw misconfigured('the CHART_SIGNING_KEY secret is not set');
  if (secret === env.ADMIN_TOKEN) throw misconfigured('CHART_SIGNING_KEY is the admin token, and must share nothing with it');
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keyCache.set(secret, key);
  }
  return key;
}

/**
 * For the routes that write and then reply with chart_img (create, save): a deployment that
 * cannot sign refuses before the write, not after it.
 */
export async function assertCanSignCharts(c: Context<AppEnv>): Promise<void> {
  await signingKey(c.env);
}

function message(accountId: number, token: string, exp: number): Uint8Array {
  return encoder.encode(`chart:v1:${accountId}:${token}:${exp}`);
}

export async function signChartUrl(env: Bindings, origin: string, accountId: number, token: string, now: number): Promise<string> {
  const key = signingKey(env);
  const exp = Math.floor(now / 1000) + readConfig(env).chartUrlTtlSeconds;
  const mac = await crypto.subtle.sign('HMAC', await key, message(accountId, token, exp));
  return `${origin}/scenarios/${token}/chart.svg?exp=${exp}&sig=${accountId}.${base64url(mac)}`;
}

/** chart_img of the caller's scenario, signed for the request's origin (view, create, save, restore). */
export function chartUrl(c: Context<AppEnv>, token: string): Promise<string> {
  const keyed = c.get('keyed');
  if (keyed.caller === null) throw new Error('chartUrl before the key was accepted');
  return signChartUrl(c.env, requestOrigin(c), keyed.caller.accountId, token, keyed.key.now);
}

export type ChartSignatureCheck = { ok: true; accountId: number } | { ok: false; reason: string };

const INVALID: ChartSignatureCheck = { ok: false, reason: 'The chart URL signature is not valid' };

/**
 * Checks a chart URL's exp and sig. Only the spelling signChartUrl writes is accepted (no leading
 * zero, no other base64url spelling of the same bytes), so each chart has one URL; the MAC itself
 * is compared in constant time by WebCrypto's verify.
 */
export async function verifyChartSignature(
  env: Bindings,
  token: string,
  exp: string | undefined,
  sig: string | undefined,
  now: number,
): Promise<ChartSignatureCheck> {
  const key = signingKey(env);
  if (!exp || !sig) return { ok: false, reason: 'The chart URL has no signature; take chart_img from the scenario' };
  const match = SIG_PATTERN.exec(sig);
  if (!EXP_PATTERN.test(exp) || !match) return INVALID;
  const accountId = Number(match[1]);
  const macText = match[2] ?? '';
  const mac = fromBase64url(macText);
  // 43 characters carry 258 bits: the last one's two spare bits must be zero, as base64url writes them.
  if (!Number.isSafeInteger(accountId) || mac.length !== MAC_BYTES || base64url(mac) !== macText) return INVALID;
  const expSeconds = Number(exp);
  if (!(await crypto.subtle.verify('HMAC', await key, mac, message(accountId, token, expSeconds)))) return INVALID;
  if (expSeconds * 1000 <= now) return { ok: false, reason: 'The chart URL has expired; fetch the scenario again for a fresh one' };
  return { ok: true, accountId };
}
