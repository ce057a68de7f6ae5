// The hourly cron's share of secrets at rest: secrets stored in plaintext (before sealing existed)
// or sealed under a key that is no longer the first of WEBHOOK_SECRET_KEYS are sealed under the
// first, and previous secrets past their expiry are forgotten. A row a rotation changed meanwhile
// is left to the next run (the update names the ciphertext it read).
import { findSecretsToSeal, storeSealedSecrets } from '../db/webhooks.ts';
import type { Session } from '../db/statement.ts';
import { keyRing, openSecret, sealSecret } from './secret-box.ts';

/** Rows sealed per run; the rest follow an hour later. */
const RESEAL_MAX = 500;

/** Seals what needs it; how many endpoints were re-sealed. */
export async function resealSecrets(session: Session, keys: string | undefined, now: number): Promise<number> {
  const ring = await keyRing(keys);
  const stale = await findSecretsToSeal(session, ring.currentId, RESEAL_MAX);
  const rows = [];
  for (const before of stale) {
    const secret = await sealSecret(ring, before.id, await openSecret(ring, before.id, { keyId: before.secretKeyId, sealed: before.secret }));
    const previous =
      before.previousSecret === null
        ? null
        : await sealSecret(ring, before.id, await openSecret(ring, before.id, { keyId: before.previousSecretKeyId, sealed: before.previousSecret }));
    rows.push({ before, secret: secret.sealed, secretKeyId: secret.keyId, previousSecret: previous?.sealed ?? null, previousSecretKeyId: previous?.keyId ?? null });
  }
  await storeSealedSecrets(session, rows, now);
  return rows.length;
}
