// The response forms of a scenario's history (a revision, a page of them, a diff), each built in
// one place, with the zod schemas that document them.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import type { RevisionRow } from './history.ts';
import { documented } from '../http/openapi.ts';
import { idSchema, TimestampSchema } from '../http/scalars.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import { ScenarioDataSchema, StateSummary, stateOf, type ScenarioListItem } from '../scenarios/forms.ts';

const Version = () => idSchema().openapi({ description: 'The version this revision is; its ETag is "v<version>"', example: 2 });

export const RevisionSchema = documented(() =>
  z
    .strictObject({
      version: Version(),
      created_at: TimestampSchema.openapi({ description: 'When the change that made this version happened' }),
      state: StateSummary(),
      scenario_data: ScenarioDataSchema,
    })
    .openapi('Revision'),
);

export const RevisionListSchema = documented(() =>
  z
    .strictObject({
      data: z.array(RevisionSchema).max(100).openapi({ description: 'Newest first; at most `limit` items' }),
      has_more: z.boolean().openapi({ description: 'Whether more revisions follow in the direction of paging' }),
    })
    .openapi('RevisionList'),
);

export const RevisionResponseSchema = documented(() =>
  z
    .strictObject({ data: RevisionSchema })
    .openapi('RevisionResponse'),
);

// What rfc6902's createPatch produces: add, remove and replace, paths as RFC 6901 pointers.
const PatchOperationSchema = documented(() =>
  z
    .strictObject({
      op: z.enum(['add', 'remove', 'replace']),
      path: z.string().max(200).regex(/^(\/([^~/]|~[01])*)*$/).openapi({ description: 'An RFC 6901 JSON Pointer into scenario_data', example: '/adult/0/wage_rate' }),
      value: z.unknown().optional().openapi({ description: 'The new value (add, replace)', example: '24.00' }),
    })
    .openapi('PatchOperation'),
);

export const DiffResponseSchema = documented(() =>
  z
    .strictObject({
      data: z.strictObject({
        from: Version(),
        to: Version(),
        patch: z.array(PatchOperationSchema).max(10_000).openapi({ description: "An RFC 6902 JSON Patch that turns from's scenario_data into to's" }),
      }),
    })
    .openapi('Diff'),
);

export type Revision = z.infer<typeof RevisionSchema>;

export function toRevisionForm(row: RevisionRow): Revision {
  const state = stateOf(row.stateId);
  return {
    version: row.version,
    created_at: formatTimestamp(row.createdAt),
    state: { id: state.id, name: state.name },
    scenario_data: JSON.parse(row.scenarioData) as ScenarioListItem['scenario_data'],
  };
}
