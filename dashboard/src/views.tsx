// The pieces every page is made of: the layout (navigation, sign-out), forms with their errors,
// times. Server-rendered with Hono's JSX; the only script (assets.ts) adds copy buttons and passkeys.
import { raw } from 'hono/html';
import type { Child, FC } from 'hono/jsx';
import { formatTimestamp } from '../../src/http/timestamps.ts';
import type { Me } from './workflows.ts';

export const BASE = '/dashboard';

const NAV = [
  ['keys', 'API keys'],
  ['webhooks', 'Webhooks'],
  ['events', 'Events'],
  ['members', 'Members'],
  ['passkeys', 'Passkeys'],
  ['account', 'Account'],
  ['audit', 'Audit log'],
] as const;

export type Section = (typeof NAV)[number][0];

/** A time as people read it (UTC, to the minute), with the exact one in `datetime`. */
export const Time: FC<{ ms: number | null; empty?: string }> = ({ ms, empty = '—' }) =>
  ms === null ? <>{empty}</> : <time datetime={formatTimestamp(ms)}>{new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC</time>;

/** The form token every change carries (checked with the request's Origin). */
export const Token: FC<{ value: string }> = ({ value }) => <input type="hidden" name="_token" value={value} />;

export const Page: FC<{ title: string; me?: Me | null; token?: string; section?: Section; children?: Child }> = ({ title, me, token, section, children }) => (
  <>
    {raw('<!doctype html>')}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Scenario Service dashboard`}</title>
        <link rel="stylesheet" href={`${BASE}/assets/dashboard.css`} />
        {/* Its own icon, so browsers do not ask the API for /favicon.ico (a 404) on every page. */}
        <link rel="icon" href={`${BASE}/assets/favicon.svg`} type="image/svg+xml" />
        <script src={`${BASE}/assets/dashboard.js`} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <p class="brand">
            Scenario Service <span>Developers</span>
          </p>
          {me && token ? (
            <div class="who">
              <span>
                {me.email}, {me.role} of <strong>{me.name}</strong>
              </span>
              <a href={`${BASE}/accounts`} class="link">
                Switch account
              </a>
              <form method="post" action={`${BASE}/sign-out`}>
                <Token value={token} />
                <button type="submit" class="link">
                  Sign out
                </button>
              </form>
            </div>
          ) : null}
        </header>
        {me ? (
          <nav aria-label="Sections">
            <ul>
              {NAV.map(([path, label]) => (
                <li>
                  <a href={`${BASE}/${path}`} aria-current={section === path ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
              <li>
                <a href="/docs">API reference</a>
              </li>
            </ul>
          </nav>
        ) : null}
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  </>
);

/** Field errors, by the field's name. */
export type Errors = Record<string, string>;

/** The list of a form's problems, announced and focusable, each linking to its field. */
export const ErrorSummary: FC<{ errors: Errors }> = ({ errors }) => {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <div class="errors" role="alert" tabindex={-1}>
      <h2>{entries.length === 1 ? 'There is a problem' : `There are ${entries.length} problems`}</h2>
      <ul>
        {entries.map(([field, message]) => (
          <li>
            <a href={`#${field}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
};

/** A labelled input with its hint and error, the error tied to it for screen readers. */
export const Field: FC<{
  name: string;
  label: string;
  value?: string;
  type?: string;
  hint?: string;
  error?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
}> = ({ name, label, value, type = 'text', hint, error, required, autocomplete, maxlength }) => {
  const described = [hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(' ');
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={name}>{label}</label>
      {hint ? (
        <p class="hint" id={`${name}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="error" id={`${name}-error`}>
          {error}
        </p>
      ) : null}
      <input
        id={name}
        name={name}
        type={type}
        value={value ?? ''}
        required={required}
        autocomplete={autocomplete}
        maxlength={maxlength}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
    </div>
  );
};

/** A secret shown this once, with a copy button. */
export const ShownOnce: FC<{ id: string; label: string; value: string; children?: Child }> = ({ id, label, value, children }) => (
  <div class="once" role="status">
    <h2>{label}</h2>
    {children}
    <p class="secret">
      <code id={id}>{value}</code>
    </p>
    <button type="button" data-copy={id}>
      Copy
    </button>
  </div>
);

export const Notice: FC<{ children?: Child }> = ({ children }) => (
  <p class="notice" role="status">
    {children}
  </p>
);

/** A wide table that scrolls sideways on a narrow screen (focusable, so a keyboard can scroll it). */
export const Scroll: FC<{ label: string; children?: Child }> = ({ label, children }) => (
  <div class="scroll" tabindex={0} role="region" aria-label={label}>
    {children}
  </div>
);

/** A table of records in its scrolling region: a header cell per column, the rows as children. */
export const Table: FC<{ label: string; caption?: string; columns: string[]; children?: Child }> = ({ label, caption, columns, children }) => (
  <Scroll label={label}>
    <table>
      {caption ? <caption class="skip">{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </Scroll>
);
