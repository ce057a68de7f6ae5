// Webhook test helpers: endpoints on the loopback receiver (test/receiver/server.ts) and what it got.
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import type { ReceivedDelivery } from '../../scripts/lib/webhook-receiver.ts';
import { api } from './api.ts';

/** A name no other test uses, so each test reads only its own deliveries. */
export function receiverName(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

/** The receiver URL for `name`, with its behaviour (`fail=2`: 500 to the first two requests). */
export function hookUrl(name: string, query = ''): string {
  return `${env.WEBHOOK_RECEIVER_URL}/hook/${name}${query ? `?${query}` : ''}`;
}

export async function registerEndpoint(key: string, url: string, extra: { event_types?: string[]; description?: string } = {}) {
  const res = await api(key).post('/webhook_endpoints', { url, ...extra });
  if (res.status !== 201) throw new Error(`registerEndpoint: ${res.status} ${res.text}`);
  return res.body as { id: string; url: string; event_types: string[]; secret: string };
}

export async function received(name: string): Promise<ReceivedDelivery[]> {
  return (await fetch(`${env.WEBHOOK_RECEIVER_URL}/log/${name}`)).json();
}

/** Polls `read` until `done` holds or `timeoutMs` passes; the last value either way. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The delivery's event, verified with the endpoint's secret by `standardwebhooks` (throws if the signature is wrong). */
export function verified(delivery: ReceivedDelivery, secret: string): { id: string; type: string; created_at: string; data: { token: string; version?: number } } {
  return new Webhook(secret).verify(delivery.body, delivery.headers) as never;
}
