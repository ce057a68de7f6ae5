// The {token} path parameter of every scenario path (the scenario, revision and chart routes), as
// the schema that validates it and documents it. The scenario routes register it as the
// `ScenarioToken` parameter component; this is the same schema registerParameter returns.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { TOKEN_PATTERN } from './schema.ts';

export const ScenarioToken = z
  .string()
  .regex(TOKEN_PATTERN)
  .openapi('ScenarioToken', {
    param: { name: 'token', in: 'path', description: 'The scenario token: 15 digits, no leading zero' },
    maxLength: 15,
    example: '482913075561204',
  });

export const TokenParams = z.object({ token: ScenarioToken });
