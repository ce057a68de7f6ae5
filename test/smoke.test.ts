import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

describe('smoke', () => {
  it('answers /me without a key with 401', async () => {
    const res = await exports.default.fetch('http://example.com/me');
    expect(res.status).toBe(401);
    console.log(await res.text(), [...res.headers]);
  });
});
