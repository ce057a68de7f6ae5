// 2026-12-01: the specification's misspelt cursor `endding_before` is refused. Before it, every
// list took `endding_before` and `ending_before` as one parameter (both at once only with the
// same value).
import { ApiError } from '../../http/problem.ts';
import { MISSPELT_CURSOR, MISSPELT_CURSOR_HINT } from '../../http/misspelt-cursor.ts';
import { defineChange } from '../change.ts';

export default defineChange({
  title: 'endding_before is refused',
  description:
    'Lists page backward with `ending_before` only. The specification\'s misspelling `endding_before`, which earlier versions ' +
    'take as the same parameter, is answered 400 `invalid_query` naming `ending_before`.',
  replies: {},
  request: {
    operations: ['GET /scenarios', 'GET /scenarios/:token/revisions', 'GET /events', 'GET /webhook_endpoints/:id/deliveries'],
    uses: (url) => url.searchParams.has(MISSPELT_CURSOR),
    upgrade(url) {
      const params = url.searchParams;
      const misspelt = params.getAll(MISSPELT_CURSOR);
      const spelt = params.getAll('ending_before');
      // Two different values, or either name repeated, are left for the newest list to refuse
      // (once the key is judged): setting ending_before would drop the repeats it refuses.
      if (misspelt.length !== 1 || spelt.length > 1 || (spelt.length === 1 && spelt[0] !== misspelt[0])) return;
      params.delete(MISSPELT_CURSOR);
      params.set('ending_before', misspelt[0]!);
    },
    refusal: () =>
      new ApiError('invalid_query', 'The query string has 1 problem; see errors', { errors: [{ path: MISSPELT_CURSOR, message: MISSPELT_CURSOR_HINT }] }),
  },
});
