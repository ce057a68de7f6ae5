// The events list, the webhook endpoint routes, the queue consumer's and the cron's statements are
// answered from indexes: EXPLAIN QUERY PLAN of what they send shows no full scan and no temporary
// sort (only json_each over an endpoint's own event types is scanned), as for the scenario routes
// (query-plans.test.ts).
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyed } from '../src/auth/keyed.ts';
import { hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { insertAccount } from '../src/db/accounts.ts';
import type { KeyCheck } from '../src/db/api-keys.ts';
import { dispatchEvent, findUndispatchedEvents } from '../src/db/events.ts';
import type { Session } from '../src/db/statement.ts';
import { findDeliveryTarget, markDeadLettered, pruneDeliveries, recordAttempt } from '../src/db/webhooks.ts';
import { listEvents } from '../src/events/workflows.ts';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import { createScenario, newEventId } from '../src/scenarios/workflows.ts';
import { keyRing, type KeyRing } from '../src/webhooks/secret-box.ts';
import { createEndpoint, deleteEndpoint, enableEndpoint, listDeliveries, listEndpoints, rotateEndpointSecret, viewEndpoint } from '../src/webhooks/workflows.ts';
import { newChangeId } from '../src/db/receipts.ts';
import { scenarioData, uniqueEmail } from './helpers/api.ts';
import { observedD1, type BoundStatement } from './helpers/observed-d1.ts';

async function plansOf(run: (session: Session) => Promise<unknown>): Promise<Array<{ sql: string; steps: string[] }>> {
  const sent: BoundStatement[] = [];
  await run(observedD1((statement) => sent.push(statement)));
  expect(sent.length).toBeGreaterThan(0);
  const plans = [];
  for (const { sql, params } of sent) {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
    plans.push({ sql, steps: plan.results.map((r) => r.detail) });
  }
  return plans;
}

async function expectIndexed(run: (session: Session) => Promise<unknown>): Promise<void> {
  for (const plan of await plansOf(run)) {
    for (const step of plan.steps) {
      expect(step, `${plan.sql}\n  ${plan.steps.join('\n  ')}`).not.toMatch(/\bSCAN (?!json_each (EXISTS )?VIRTUAL TABLE)/);
      expect(step, `${plan.sql}\n  ${plan.steps.join('\n  ')}`).not.toMatch(/TEMP B-TREE/);
    }
  }
}

describe('query plans of events and webhooks', () => {
  let key: KeyCheck;
  const eventIds: string[] = [];
  let endpointId: string;
  let ring: KeyRing;

  beforeAll(async () => {
    ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
    const account = (await insertAccount(env.DB, { name: 'Plans', email: uniqueEmail(), now: Date.now() }))!;
    const issued = (await issueApiKey(env.DB, account.id, { name: null, scope: 'read_write', expiresAt: null, now: Date.now() }))!;
    key = { keyHash: await hashApiKey(issued.key), now: Date.now(), address: '192.0.2.9' };
    endpointId = (await createEndpoint(keyed(env.DB, key, 'write'), ring, { url: 'https://hooks.example.com/x', eventTypes: ['scenario.created'], description: null })).endpoint.id;
    const input = ScenarioDataInputSchema.parse(scenarioData());
    for (let i = 0; i < 4; i++) {
      const eventId = newEventId();
      await createScenario(keyed(env.DB, { ...key, now: Date.now() }, 'write'), input, eventId);
      eventIds.push(eventId);
    }
  });

  it('lists events on (account_id, seq) or (account_id, type, seq), cursors by event id', async () => {
    for (const type of [undefined, 'scenario.created' as const]) {
      await expectIndexed((s) => listEvents(keyed(s, key, 'read'), { limit: 2 }, type));
      await expectIndexed((s) => listEvents(keyed(s, key, 'read'), { limit: 2, startingAfter: eventIds[2] }, type));
      await expectIndexed((s) => listEvents(keyed(s, key, 'read'), { limit: 2, endingBefore: eventIds[1] }, type));
    }
  });

  it('serves the endpoint routes from their indexes', async () => {
    await expectIndexed((s) => listEndpoints(keyed(s, key, 'write')));
    await expectIndexed((s) => viewEndpoint(keyed(s, key, 'write'), endpointId));
    await expectIndexed((s) => listDeliveries(keyed(s, key, 'write'), endpointId, { limit: 10 }));
    await expectIndexed((s) => listDeliveries(keyed(s, key, 'write'), endpointId, { limit: 10, startingAfter: 1000 }));
    await expectIndexed((s) => listDeliveries(keyed(s, key, 'write'), endpointId, { limit: 10, endingBefore: 1 }));
    await expectIndexed((s) => createEndpoint(keyed(s, key, 'write'), ring, { url: 'https://hooks.example.com/y', eventTypes: ['scenario.saved'], description: null }));
    const spare = (await createEndpoint(keyed(env.DB, key, 'write'), ring, { url: 'https://hooks.example.com/z', eventTypes: ['scenario.saved'], description: null })).endpoint.id;
    await expectIndexed((s) => rotateEndpointSecret(keyed(s, key, 'write'), ring, spare, 60, newChangeId()));
    await expectIndexed((s) => enableEndpoint(keyed(s, key, 'write'), spare));
    await expectIndexed((s) => deleteEndpoint(keyed(s, key, 'write'), spare, newChangeId()));
  });

  it("runs the consumer's and the cron's statements from indexes", async () => {
    const eventId = eventIds[0]!;
    await expectIndexed((s) => dispatchEvent(s, eventId, Date.now()));
    await expectIndexed((s) => findDeliveryTarget(s, endpointId, eventId));
    await expectIndexed((s) => recordAttempt(s, { endpointId, eventId, status: 500, error: null, answered: 0, attemptKey: `plan:${Date.now()}`, disableAfterMs: 1000, now: Date.now() }));
    await expectIndexed((s) => markDeadLettered(s, endpointId, eventId));
    await expectIndexed((s) => findUndispatchedEvents(s, Date.now(), 100));
    await expectIndexed((s) => pruneDeliveries(s, 0));
  });
});
