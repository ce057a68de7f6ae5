// 2026-12-01: scenario_data.token is a string in every reply. Before it, the specification's
// detail form (view, create, save, restore) and a revision gave it as a number, while the list
// gave it as a string.
import { defineChange } from '../change.ts';

interface WithData {
  scenario_data: { token: string | number };
}

/** The token as the number it spells (15 digits: exact below 2^53). */
function numericToken(item: WithData): void {
  item.scenario_data.token = Number(item.scenario_data.token);
}

const one = (body: { data: WithData }) => {
  numericToken(body.data);
  return body;
};

export default defineChange({
  title: 'scenario_data.token is always a string',
  description:
    'The token inside `scenario_data` is a string in every reply, as the scenario\'s own `token` is. Before, the detail form ' +
    '(view, create, save, PATCH, restore) and revisions gave it as a number, and the list and the export as a string.',
  replies: {
    'GET /scenarios/:token': one,
    'POST /scenarios': one,
    'POST /scenarios/save': one,
    'PUT /scenarios/save': one,
    'PATCH /scenarios/:token': one,
    'POST /scenarios/:token/revisions/:version/restore': one,
    'GET /scenarios/:token/revisions/:version': one,
    'GET /scenarios/:token/revisions': (body: { data: WithData[] }) => {
      body.data.forEach(numericToken);
      return body;
    },
  },
});
