// The share-link forms (created, listed) and the shared scenario's JSON form, each built in one
// place, with the zod schemas that validate the create body and document the replies.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import type { ShareLink } from '../db/schema.ts';
import { documented } from '../http/openapi.ts';
import { int, TimestampSchema } from '../http/scalars.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import type { StoredScenarioData } from '../scenarios/data.ts';
import { ScenarioDataSchema, stateOf } from '../scenarios/forms.ts';
import { US_STATES } from '../scenarios/states.ts';
import { SHARE_LINK_DEFAULT_SECONDS, SHARE_LINK_MAX_SECONDS, SHARE_LINK_MIN_SECONDS } from './limits.ts';
import { SHARE_LINK_ID_PATTERN } from './secret.ts';

export const ShareLinkIdSchema = () =>
  z.string().length(35).regex(SHARE_LINK_ID_PATTERN).openapi({ description: 'sl_ + 32 hex digits', example: 'sl_6f1c0a9e3b5d47e2a8c4f0b1d3e5a7c9' });

export const CreateShareLinkBodySchema = z
  .strictObject({
    expires_in: int(SHARE_LINK_MIN_SECONDS, SHARE_LINK_MAX_SECONDS)
      .optional()
      .openapi({ description: `Seconds the link works for: 1 hour to 90 days (default ${SHARE_LINK_DEFAULT_SECONDS}, 7 days)`, example: 86400 }),
    show_nicknames: z.boolean().optional().openapi({ description: "Whether the page shows the adults' nicknames (default false)" }),
  })
  .openapi('CreateShareLink');

const common = () => ({
  id: ShareLinkIdSchema(),
  created_at: TimestampSchema,
  expires_at: TimestampSchema.openapi({ description: 'When the link stops working' }),
  show_nicknames: z.boolean(),
});

export const CreatedShareLinkSchema = documented(() =>
  z
    .strictObject({
      ...common(),
      url: z
        .string()
        .max(2048)
        .openapi({ format: 'uri', description: 'The link (PUBLIC_ORIGIN/shared/<secret>): shown only in this reply', example: 'https://scenarios.example.org/shared/AjX0c9Vb3mQeR7tYh2LpZ8nKw5sD1fGu4oIyT6aEr0M' }),
    })
    .openapi('CreatedShareLink'),
);

export const ShareLinkSchema = documented(() =>
  z
    .strictObject({
      ...common(),
      views: int(0, Number.MAX_SAFE_INTEGER).openapi({ description: 'Times the page (or its JSON) was opened' }),
      last_viewed_at: TimestampSchema.nullable(),
      revoked_at: TimestampSchema.nullable().openapi({ description: 'null until revoked; a revoked link opens no more' }),
    })
    .openapi('ShareLink'),
);

export const ShareLinkListSchema = documented(() =>
  z
    .strictObject({
      data: z.array(ShareLinkSchema).max(100).openapi({ description: "The scenario's newest 100 links, newest first (revoked and expired ones too)" }),
      has_more: z.boolean().openapi({ description: 'Whether older links exist beyond these' }),
    })
    .openapi('ShareLinkList'),
);

/** scenario_data as a share shows it: the detail form's, without the token (and nicknames only if the link shows them). */
export const SharedScenarioSchema = documented(() =>
  z
    .strictObject({
      data: z.strictObject({
        state: z.strictObject({
          id: int(1, 56),
          name: z.enum(US_STATES.map((s) => s.name) as [string, ...string[]]),
          slug: z.enum(US_STATES.map((s) => s.slug) as [string, ...string[]]),
        }),
        scenario_data: ScenarioDataSchema.omit({ token: true }),
        version: int(1, Number.MAX_SAFE_INTEGER).openapi({ description: 'The version shown (the current one)' }),
        shared_until: TimestampSchema.openapi({ description: 'When the link stops working' }),
      }),
    })
    .openapi('SharedScenario'),
);

export type SharedScenario = z.infer<typeof SharedScenarioSchema>;

function commonForm(link: ShareLink) {
  return {
    id: link.id,
    created_at: formatTimestamp(link.createdAt),
    expires_at: formatTimestamp(link.expiresAt),
    show_nicknames: link.showNicknames === 1,
  };
}

export function toCreatedShareLink(link: ShareLink, url: string): z.infer<typeof CreatedShareLinkSchema> {
  return { ...commonForm(link), url };
}

export function toShareLinkForm(link: ShareLink): z.infer<typeof ShareLinkSchema> {
  return {
    ...commonForm(link),
    views: link.views,
    last_viewed_at: link.lastViewedAt === null ? null : formatTimestamp(link.lastViewedAt),
    revoked_at: link.revokedAt === null ? null : formatTimestamp(link.revokedAt),
  };
}

/** What a link shows of its scenario. */
export interface Shared {
  stateId: number;
  data: StoredScenarioData;
  version: number;
  expiresAt: number;
  showNicknames: boolean;
}

/** The stored data as a share shows it: no token, and no nicknames unless the link shows them. */
export function sharedData(shared: Shared): Omit<StoredScenarioData, 'token'> {
  const { token: _token, ...data } = shared.data;
  if (shared.showNicknames) return data;
  return { ...data, adult: data.adult.map(({ nickname: _nickname, ...adult }) => adult) };
}

export function toSharedJson(shared: Shared): SharedScenario {
  const state = stateOf(shared.stateId);
  return {
    data: {
      state: { id: state.id, name: state.name, slug: state.slug },
      scenario_data: sharedData(shared) as SharedScenario['data']['scenario_data'],
      version: shared.version,
      shared_until: formatTimestamp(shared.expiresAt),
    },
  };
}
