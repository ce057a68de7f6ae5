// The admin Worker's bindings (admin/wrangler.toml), written out here rather than generated:
// `wrangler types` writes one Env per project, and worker-configuration.d.ts is the API's. Its
// routes are the API's own modules and read the same names (src/env.ts `readConfig`,
// `readDatabases`, the failed-authentication limiter), so each is the API's binding of that name.
import type { Bindings } from '../../src/env.ts';

export type AdminBindings = Pick<Bindings, 'DB' | 'DB_2' | 'DB_3' | 'AUTH_FAILURE_LIMITER' | 'DATABASE_MAX_BYTES' | 'DEFAULT_API_VERSION' | 'ADMIN_TOKEN'>;
