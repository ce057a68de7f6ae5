// The dashboard's sign-in e-mails, locally: wrangler dev's send_email binding writes each message
// it is given to .wrangler/tmp/email/<session>/email-text/<id>.txt (and logs that path at a level
// npm start does not show). These read them back: npm start prints each one's link as it arrives,
// and the browser check signs in with them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where wrangler dev writes each e-mail the dashboard sends (its send_email binding, locally). */
export const SIGN_IN_EMAILS = '.wrangler/tmp/email';

export interface SignInEmail {
  file: string;
  to: string | null;
  link: string;
  at: number;
}

// Sign-in links and invitations (both e-mailed, both single use).
const LINK = /https?:\/\/\S+\/dashboard\/(?:sign-in\/confirm|invitations\/accept)\?token=[A-Za-z0-9_-]+/;

/** Every sign-in e-mail under `root`, oldest first. */
export function readSignInEmails(root: string): SignInEmail[] {
  if (!existsSync(root)) return [];
  const found: SignInEmail[] = [];
  for (const session of readdirSync(root)) {
    const dir = join(root, session, 'email-text');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.txt'))) {
      const file = join(dir, name);
      const text = readFileSync(file, 'utf8');
      const link = LINK.exec(text)?.[0];
      if (link) found.push({ file, to: /dashboard as (\S+):$/m.exec(text)?.[1] ?? null, link, at: statSync(file).mtimeMs });
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

/** Calls `found` with each e-mail written from now on (polled every half second). */
export function watchSignInEmails(root: string, found: (to: string, link: string) => void): () => void {
  const seen = new Set(readSignInEmails(root).map((e) => e.file));
  const timer = setInterval(() => {
    for (const email of readSignInEmails(root)) {
      if (seen.has(email.file)) continue;
      seen.add(email.file);
      found(email.to ?? 'someone', email.link);
    }
  }, 500);
  timer.unref();
  return () => clearInterval(timer);
}
