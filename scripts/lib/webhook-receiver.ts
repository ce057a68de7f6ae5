// A real webhook receiver on loopback, in Node: for the tests (started by vitest.config.ts, as the
// tests run in workerd, which cannot listen) and for the smoke and soak scripts, so deliveries
// travel over real HTTP from the Worker's queue consumer.
//   POST /hook/<name>[?fail=N][&status=S]  records the request; answers S (default 500) to the
//                                          first N requests to <name> (all of them with fail=all), then 204
//   POST /hook/<name>?flaky=P               answers 503 to a random share P (0–1) of requests
//   GET  /log/<name>                       the requests <name> received, oldest first (JSON)
import { createServer, type Server } from 'node:http';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  /** The status the receiver answered. */
  answered: number;
  at: number;
}

export interface Receiver {
  url: string;
  server: Server;
  /** What `name` received so far, oldest first (the same list GET /log/<name> returns). */
  received: (name: string) => ReceivedDelivery[];
}

export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, ReceivedDelivery[]>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://receiver');
    const [, kind, name] = url.pathname.split('/');
    if (request.method === 'GET' && kind === 'log' && name) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    if (request.method !== 'POST' || kind !== 'hook' || !name) {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const log = received.get(name) ?? [];
      received.set(name, log);
      const fail = url.searchParams.get('fail');
      const failing = fail === 'all' || log.length < Number(fail ?? 0) || Math.random() < Number(url.searchParams.get('flaky') ?? 0);
      const answered = failing ? Number(url.searchParams.get('status') ?? (url.searchParams.has('flaky') ? 503 : 500)) : 204;
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      log.push({ headers, body: Buffer.concat(chunks).toString('utf8'), answered, at: Date.now() });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver has no port');
  return { url: `http://127.0.0.1:${address.port}`, server, received: (name) => received.get(name) ?? [] };
}
