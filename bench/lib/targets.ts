// The benchmarked endpoints, shared by the benches: what to send to each (wrk's target, or one
// fetch), and the status a success answers.
import { readFileSync } from 'node:fs';
import type { Target } from './load.ts';
import type { SeedInfo } from './seed.ts';

export const ENDPOINTS = ['view', 'list', 'list_100', 'list_deep', 'save', 'create', 'me'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Files holding the save and create bodies. */
export interface BodyFiles {
  save: string;
  create: string;
}

/**
 * BENCH_API_VERSION: sent as the API-Version header of every request (unset: none, so the seeded
 * account's pinned version, 2026-11-21), to count what a version's transforms cost.
 */
const apiVersion = process.env.BENCH_API_VERSION;

export function targetFor(endpoint: Endpoint, base: string, seed: SeedInfo, bodies: BodyFiles): Target {
  const auth = { Authorization: `Bearer ${seed.key}`, ...(apiVersion ? { 'API-Version': apiVersion } : {}) };
  const json = { ...auth, 'Content-Type': 'application/json' };
  switch (endpoint) {
    case 'view':
      return { method: 'GET', url: `${base}/scenarios/${seed.viewToken}`, headers: auth };
    case 'list':
      return { method: 'GET', url: `${base}/scenarios`, headers: auth };
    case 'list_100':
      return { method: 'GET', url: `${base}/scenarios?limit=100`, headers: auth };
    case 'list_deep':
      return { method: 'GET', url: `${base}/scenarios?starting_after=${seed.deepCursor}`, headers: auth };
    case 'save':
      return { method: 'POST', url: `${base}/scenarios/save`, headers: json, bodyFile: bodies.save };
    case 'create':
      return { method: 'POST', url: `${base}/scenarios`, headers: json, bodyFile: bodies.create };
    case 'me':
      return { method: 'GET', url: `${base}/me`, headers: auth };
  }
}

export const EXPECTED_STATUS: Record<Endpoint, number> = { view: 200, list: 200, list_100: 200, list_deep: 200, save: 200, create: 201, me: 200 };

export async function request(target: Target): Promise<Response> {
  return fetch(target.url, {
    method: target.method,
    headers: target.headers,
    ...(target.bodyFile ? { body: readFileSync(target.bodyFile) } : {}),
  });
}
