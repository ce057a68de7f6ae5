// Examples for the OpenAPI document: the scenario examples' household, created (version 1) and
// saved for the next year (version 2). Built by the functions that build real replies, when the
// document is generated (functions handed to jsonContent), never at isolate start.
import { createPatch } from 'rfc6902';
import { EXAMPLE_CREATED_AT, exampleScenario, exampleStored } from '../scenarios/examples.ts';
import { toRevisionForm } from './forms.ts';

const HOUR_MS = 3_600_000;
const created = () => ({ version: 1, stateId: 36, scenarioData: exampleStored().created, createdAt: EXAMPLE_CREATED_AT });
const saved = () => ({ version: 2, stateId: 36, scenarioData: exampleStored().saved, createdAt: EXAMPLE_CREATED_AT + HOUR_MS });

export const exampleRevisionList = () => ({ data: [toRevisionForm(saved()), toRevisionForm(created())], has_more: false });

export const exampleRevision = () => ({ data: toRevisionForm(created()) });

export const exampleDiff = () => ({
  data: { from: 1, to: 2, patch: createPatch(JSON.parse(created().scenarioData) as object, JSON.parse(saved().scenarioData) as object) },
});

/** Restoring version 1 (the created data) as version 3. */
export function exampleRestored() {
  return exampleScenario({ version: 3, updatedAt: EXAMPLE_CREATED_AT + 2 * HOUR_MS });
}
