// Examples for the OpenAPI document: the scenario examples' household, created (version 1) and
// saved for the next year (version 2). Built by the functions that build real replies, when the
// document is generated (functions handed to jsonContent), never at isolate start.
import { createPatch } from 'rfc6902';
import { EXAMPLE_CREATED_AT, EXAMPLE_TOKEN, exampleDetail, exampleStored } from '../scenarios/examples.ts';
import { detailData } from '../scenarios/forms.ts';
import { toRevisionForm } from './forms.ts';

const HOUR_MS = 3_600_000;
const created = () => ({ version: 1, stateId: 36, scenarioData: exampleStored().created, createdAt: EXAMPLE_CREATED_AT });
const saved = () => ({ version: 2, stateId: 36, scenarioData: exampleStored().saved, createdAt: EXAMPLE_CREATED_AT + HOUR_MS });

export const exampleRevisionList = () => ({ data: [toRevisionForm(saved(), EXAMPLE_TOKEN), toRevisionForm(created(), EXAMPLE_TOKEN)], has_more: false });

export const exampleRevision = () => ({ data: { status: 'success', message: 'Revision found', revision: toRevisionForm(created(), EXAMPLE_TOKEN) } });

export const exampleDiff = () => ({
  data: { from: 1, to: 2, patch: createPatch(detailData(created().scenarioData, EXAMPLE_TOKEN), detailData(saved().scenarioData, EXAMPLE_TOKEN)) },
});

/** Restoring version 1 (the created data) as version 3. */
export function exampleRestored() {
  return exampleDetail('Scenario restored');
}
