// The hourly cron's share of secrets at rest: secrets stored in plaintext (before sealing existed)
// or sealed under a key that is no longer the first of WEBHOOK_SECRET_KEYS are sealed under the
// first, and previous secrets past their expiry are forgotten. A row a rotation changed meanwhile
// is left to the next run (the update names the ciphertext it read).
import { findSecretsToSeal, storeSealedSecrets } from '../db/webhooks.ts';
import type { Session } from '../db/statement.ts';
import { log } from '../http/log.ts';
import { keyRing, openSecret, sealSecret } from './secret-box.ts';

/** Rows sealed per run; the rest follow an hour later. */
const RESEAL_MAX = 500;

/** Seals what needs it; how many endpoints were re-sealed. */
export async function resealSecrets(session: Session, keys: string | undefined, now: number): Promise<number> {
  const ring = await keyRing(keys);
  const stale = await findSecretsToSeal(session, ring.currentId, RESEAL_MAX);
  const rows = [];
  let unopened = 0;
  for (const before of stale) {
    try {
      const secret = await sealSecret(ring, before.id, await openSecret(ring, before.id, { keyId: before.secretKeyId, sealed: before.secret }));
      const previous =
        before.previousSecret === null
          ? null
          : await sealSecret(ring, before.id, await openSecret(ring, before.id, { keyId: before.previousSecretKeyId, sealed: before.previousSecret }));
      rows.push({ before, secret: secret.sealed, secretKeyId: secret.keyId, previousSecret: previous?.sealed ?? null, previousSecretKeyId: previous?.keyId ?? null });
    } catch {
      // Sealed under a key no longer listed (dropped too early): it cannot sign either. Left for
      // the operator (the log says how many); the other rows are sealed regardless.
      unopened += 1;
    }
  }
  if (unopened > 0) log('error', 'webhook secrets sealed under a key WEBHOOK_SECRET_KEYS no longer lists', { endpoints: unopened });
  await storeSealedSecrets(session, rows, now);
  return rows.length;
}
