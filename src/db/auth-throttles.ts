// Addresses refused after too many failed authentications. The Workers rate-limit binding counts
// every question it is asked, so it cannot say "is this address over?" without counting a request;
// the refusal it decides on is therefore recorded here, and read before any credential is judged.
import { sql } from 'drizzle-orm/sql/sql';
import { runOne } from './execute.ts';
import { authThrottles } from './schema.ts';
import { statement, type Session } from './statement.ts';

const p = sql.placeholder;

/** What a throttle check names: the client's address and the time it is judged at. */
export interface AddressCheck {
  address: string;
  now: number;
}

/** The address's refusal, one row while it lasts: sent in the batch of every API-key request. */
export const throttleOf = statement<AddressCheck>(
  () => sql`select ${authThrottles.until} as until from ${authThrottles}
    where ${authThrottles.address} = ${p('address')} and ${authThrottles.until} > ${p('now')}`,
);

/** Whether the address is refused now (one round trip; the admin API asks before comparing its token). */
export async function isThrottled(session: Session, check: AddressCheck): Promise<boolean> {
  return (await runOne(session, throttleOf(session, check))).length > 0;
}

const refuse = statement<{ address: string; until: number }>(
  () => sql`insert into ${authThrottles} (address, until) values (${p('address')}, ${p('until')})
    on conflict (address) do update set until = max(${authThrottles.until}, excluded.until)`,
);

/** Refuses the address until `until` (never shortens a refusal already recorded). */
export async function throttleAddress(session: Session, address: string, until: number): Promise<void> {
  await runOne(session, refuse(session, { address, until }));
}

/** For the hourly prune: lapsed refusals. */
export const pruneThrottles = statement<{ before: number }>(() => sql`delete from ${authThrottles} where ${authThrottles.until} < ${p('before')}`);
