// Which URLs a webhook endpoint may have: https:// to a public host. The URL is parsed by the
// WHATWG URL parser (`new URL`), which is also what fetch will use, so every notation of an IP
// address (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1, bracketed IPv6) has
// already become its canonical form when it is classified here. A host name is made canonical
// first: every trailing dot removed (`10.0.0.1..`, `intranet..` are the same hosts to a resolver
// that forgives them), and parsed again, so that what was a name with dots becomes the address it
// spells (`0x7f.1..` is 127.0.0.1); the URL stored, and fetched, is that canonical one. Imports
// nothing, so anything may use it.

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

// IPv4 ranges that are not public unicast (RFC 6890 and friends), as [first octets, prefix length].
const IPV4_NOT_PUBLIC: Array<[number[], number, string]> = [
  [[0], 8, 'an unspecified ("this network") address'],
  [[10], 8, 'a private address'],
  [[100, 64], 10, 'a carrier-grade NAT address'],
  [[127], 8, 'a loopback address'],
  [[169, 254], 16, 'a link-local address'],
  [[172, 16], 12, 'a private address'],
  [[192, 0, 0], 24, 'a reserved address'],
  [[192, 0, 2], 24, 'a documentation address'],
  [[192, 88, 99], 24, 'a relay anycast address'],
  [[192, 168], 16, 'a private address'],
  [[198, 18], 15, 'a benchmarking address'],
  [[198, 51, 100], 24, 'a documentation address'],
  [[203, 0, 113], 24, 'a documentation address'],
  [[224], 4, 'a multicast address'],
  [[240], 4, 'a reserved address'],
];

function ipv4Bits(octets: number[]): number {
  return octets.reduce((bits, octet) => (bits << 8) | octet, 0) >>> 0;
}

/** Why an IPv4 address is not public, or null when it is. */
function ipv4Problem(octets: number[]): string | null {
  const address = ipv4Bits(octets);
  for (const [start, prefix, why] of IPV4_NOT_PUBLIC) {
    const padded = [...start, 0, 0, 0, 0].slice(0, 4);
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if (((address & mask) >>> 0) === ((ipv4Bits(padded) & mask) >>> 0)) return why;
  }
  return null;
}

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The eight 16-bit groups of a canonical IPv6 address as the URL parser writes it (no brackets). */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(halves[0] ?? '');
  const tail = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Why an IPv6 address is not public unicast, or null when it is. */
function ipv6Problem(groups: number[]): string | null {
  const [g0 = 0, g1 = 0] = groups;
  if (groups.every((g) => g === 0)) return 'the unspecified address';
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return 'a loopback address';
  if (groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || groups[5] === 0)) return 'an IPv4-mapped or -compatible address';
  if (g0 === 0x64 && g1 === 0xff9b) return 'a NAT64 address';
  if ((g0 & 0xfe00) === 0xfc00) return 'a unique local address';
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return 'a link-local or site-local address';
  if ((g0 & 0xff00) === 0xff00) return 'a multicast address';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'a documentation address';
  if (g0 === 0x2002 || (g0 === 0x2001 && g1 === 0)) return 'a tunnelling address that embeds an IPv4 address';
  // Global unicast is 2000::/3; everything else is reserved.
  if ((g0 & 0xe000) !== 0x2000) return 'a reserved address';
  return null;
}

function isLoopbackHost(name: string): boolean {
  const quad = DOTTED_QUAD.exec(name);
  if (quad) return Number(quad[1]) === 127;
  if (name === '[::1]') return true;
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The URL with its host in canonical form (no trailing dot, parsed again), or null when no host
 * is left. Origins compared with it must be made canonical the same way.
 */
export function canonicalUrl(input: string): URL | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.hostname.endsWith('.')) {
    // The setter runs the host parser again (an all-numeric name becomes an IPv4 address); an
    // empty or invalid host is refused by leaving the old one, which still ends with a dot.
    url.hostname = url.hostname.replace(/\.+$/, '');
    if (url.hostname.endsWith('.') || url.hostname === '') return null;
  }
  return url;
}

/** The port a URL reaches: its own, or its scheme's default. */
function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
}

/**
 * Whether `input` may be a webhook endpoint's URL. With `allowLoopback` (WEBHOOK_ALLOW_LOOPBACK,
 * local development only), http:// and https:// to a loopback host are allowed too. `ownOrigins`
 * are the service's own (PUBLIC_ORIGIN, and the origin a request reached it at): they are refused,
 * since deliveries there would be requests to its own API; and where loopback is allowed, so is
 * every loopback name of their ports (`http://localhost:8787`, `https://127.0.0.1:8787`,
 * `http://2130706433:8787`, `[::1]`, `127.1`: the same server under another name).
 */
export function checkWebhookUrl(input: string, allowLoopback: boolean, ownOrigins: ReadonlyArray<string | null | undefined> = []): UrlVerdict {
  if (input.length > MAX_URL_LENGTH) return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  const url = canonicalUrl(input);
  if (!url) return { ok: false, reason: 'is not a URL with a host' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry credentials (user:password@)' };
  const own = ownOrigins.flatMap((origin) => {
    const parsed = origin ? canonicalUrl(origin) : null;
    return parsed ? [parsed] : [];
  });
  if (own.some((origin) => origin.origin === url.origin)) return { ok: false, reason: 'must not point at this service itself' };
  if (allowLoopback && isLoopbackHost(url.hostname) && own.some((origin) => effectivePort(origin) === effectivePort(url))) {
    return { ok: false, reason: `must not point at this service itself (port ${effectivePort(url)} on loopback is its own)` };
  }
  if (allowLoopback && isLoopbackHost(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return { ok: true, url: url.href };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must be an https:// URL' };
  const host = url.hostname.toLowerCase();
  if (host.startsWith('[')) {
    const groups = ipv6Groups(host.slice(1, -1));
    const problem = groups ? ipv6Problem(groups) : 'an IPv6 address that cannot be read';
    return problem ? { ok: false, reason: `must be a public host; ${host} is ${problem}` } : { ok: true, url: url.href };
  }
  const quad = DOTTED_QUAD.exec(host);
  if (quad) {
    const problem = ipv4Problem(quad.slice(1, 5).map(Number));
    return problem ? { ok: false, reason: `must be a public host; ${host} is ${problem}` } : { ok: true, url: url.href };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'must be a public host, not localhost' };
  // A name without a dot (intranet, a container's name) or under a suffix reserved for private
  // networks can only resolve privately.
  if (!host.includes('.')) return { ok: false, reason: 'must be a public host with a domain name' };
  if (/\.(local|internal|intranet|lan|home\.arpa|localdomain)$/.test(host)) return { ok: false, reason: 'must be a public host, not a private domain' };
  return { ok: true, url: url.href };
}
