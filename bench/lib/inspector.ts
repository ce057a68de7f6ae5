// A connection to a Worker's V8 inspector through Miniflare's inspector proxy (startServer's
// inspectorPort): CPU profiles (bench/profile.ts) and heap usage (bench/filters.ts).
export class Inspector {
  #ws: WebSocket;
  #next = 1;
  #pending = new Map<number, (value: unknown) => void>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.addEventListener('message', (event) => {
      const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
      if (msg.id !== undefined) {
        const resolve = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        resolve?.(msg.error ? Promise.reject(new Error(JSON.stringify(msg.error))) : msg.result);
      }
    });
  }

  static async connect(url: string): Promise<Inspector> {
    // Miniflare's inspector proxy wants an Origin it allows; Node's WebSocket (undici) takes headers
    // in its second argument, which the DOM typings do not know.
    const init = { headers: { Origin: 'http://localhost' } } as unknown as string[];
    const ws = new WebSocket(url, init);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
    });
    return new Inspector(ws);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next++;
    this.#ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve) => this.#pending.set(id, resolve as (value: unknown) => void));
  }

  close(): void {
    this.#ws.close();
  }
}

/** The inspector of the only Worker served on `port`. */
export async function connectInspector(port: number): Promise<Inspector> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const url = list[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error('no inspector target');
  return Inspector.connect(url);
}
