// What an isolate does while it starts (src/index.ts builds the app in the global scope): the
// schemas only the OpenAPI document reads (`documented` in src/http/openapi.ts) stay unbuilt. One
// touched at module level, outside another `documented` factory (`z.array(SomeReplySchema)` in a
// route's responses, say), is built at every isolate start, and lands here.
import { describe, expect, it } from 'vitest';
import { app } from '../src/app.ts';
import { documentedBuiltCount } from '../src/http/openapi.ts';

describe('isolate start', () => {
  it('builds the app without building any schema only the OpenAPI document reads', () => {
    expect(app.routes.length).toBeGreaterThan(20);
    expect(documentedBuiltCount()).toBe(0);
  });
});
