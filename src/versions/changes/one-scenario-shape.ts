// 2026-12-01: a scenario has one shape everywhere. Before it, view, create, save and restore
// answered the specification's detail form (`{data: {status, message, scenario: {token,
// scenario_data, chart_img, created_at, state: {id, name}}}}`), a revision `{data: {status,
// message, revision}}`, and delete `{data: {status, message}}`.
import { defineChange, type Operation } from '../change.ts';

interface Scenario {
  token: string;
  scenario_data: unknown;
  chart_img: string;
  created_at: string;
  state: { id: number; name: string };
}

/** The newest `{data: <scenario>}` as the detail form with `message`. */
const detailForm = (message: string) => (body: { data: Scenario }) => {
  const { token, scenario_data, chart_img, created_at, state } = body.data;
  return { data: { status: 'success', message, scenario: { token, scenario_data, chart_img, created_at, state: { id: state.id, name: state.name } } } };
};

const deleted = () => ({ data: { status: 'success', message: 'Scenario deleted' } });

export const SCENARIO_REPLIES = {
  'GET /scenarios/:token': 'Scenario found',
  'POST /scenarios': 'Scenario created',
  'POST /scenarios/save': 'Scenario saved',
  'PUT /scenarios/save': 'Scenario saved',
  'PATCH /scenarios/:token': 'Scenario saved',
  'POST /scenarios/:token/revisions/:version/restore': 'Scenario restored',
} as const satisfies Partial<Record<Operation, string>>;

export default defineChange({
  title: 'One scenario shape everywhere',
  description:
    'View, create, save, PATCH and restore answer `{"data": <scenario>}`, where the scenario is the list item (`id`, `user_id`, ' +
    '`state` with its `slug`, `token`, `expired`, `created_at`, `updated_at`, `version`, `scenario_data`) plus `chart_img`. ' +
    'A revision answers `{"data": <revision>}`; a delete answers `{"data": {"token", "deleted": true}}`. The `status` and ' +
    '`message` wrapper of the specification\'s detail form is gone: the HTTP status says whether a request succeeded.',
  replies: {
    ...Object.fromEntries(Object.entries(SCENARIO_REPLIES).map(([operation, message]) => [operation, detailForm(message)])),
    'GET /scenarios/:token/revisions/:version': (body: { data: unknown }) => ({ data: { status: 'success', message: 'Revision found', revision: body.data } }),
    'DELETE /scenarios/:token/delete': deleted,
    'DELETE /scenarios/:token': deleted,
  },
});
