// What the Worker runs in place of `@hono/zod-openapi`: its request validation, without its
// OpenAPI document. Routes and schemas import this module by its own path, so the import says what
// runs; where the document is generated (scripts/openapi-export.ts, under Node) and in the tests'
// second run (vitest.config.ts, project "real-packages"), this path resolves to the real package
// instead, which the validation and error tests then run through.
//
// The document is generated at build time from the very same route definitions (`npm run
// openapi`), and the Worker serves that (src/versions/openapi-document.ts). At run time nothing reads
// OpenAPI metadata, so here:
//  - a schema's `.openapi(...)` returns the schema itself (the real one clones it and records the
//    metadata in a registry: some 30 % of building a schema, for every schema at isolate start);
//  - `openAPIRegistry` only keeps the route definitions (src/http/routing.ts reads them for 404 and
//    405), and hands back the schema it is given to register;
//  - `createRoute` returns its argument, and zod-to-openapi (31 KiB) is not in the bundle.
// `.openapi(route, handler)` of OpenAPIHono builds the same validators, in the same order, as
// @hono/zod-openapi 1.6.3's (dist/index.mjs), which is the reference for any change here.
//
// zod itself is the real package, imported as a namespace: the bundler keeps only the members used
// (its message translations and JSON Schema tooling stay out of the bundle).
import { zValidator } from '@hono/zod-validator';
import { Hono, type Context, type MiddlewareHandler, type Next } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { mergePath } from 'hono/utils/url';
import * as z from 'zod';

type ZodType = z.ZodType;

function openapi(this: unknown) {
  return this;
}
// What src/http/openapi.ts's `documented` asks: no metadata is recorded, so no document will be made here.
Object.defineProperty(openapi, Symbol.for('scenario-service.openapi.records-nothing'), { value: true });
(z.ZodType.prototype as unknown as { openapi: typeof openapi }).openapi = openapi;

/** What routing and the tests read of a route (the real package's RouteConfig, loosely). */
interface RouteConfig {
  method: string;
  path: string;
  middleware?: MiddlewareHandler | MiddlewareHandler[];
  hide?: boolean;
  request?: {
    query?: ZodType;
    params?: ZodType;
    headers?: ZodType;
    cookies?: ZodType;
    body?: { required?: boolean; content?: Record<string, { schema?: unknown } | undefined> };
  };
  responses?: Record<string, unknown>;
}

type RouteDefinition = { type: 'route'; route: Omit<RouteConfig, 'middleware' | 'hide'> };
type Hook = (result: { success: boolean; target: string } & Record<string, unknown>, c: Context) => unknown;

/** The route definitions of an app and the sub-apps it mounts; other registrations only pass through. */
class RouteRecords {
  readonly definitions: RouteDefinition[] = [];
  registerPath(route: RouteDefinition['route']): void {
    this.definitions.push({ type: 'route', route });
  }
  registerParameter<T>(_name: string, schema: T): T {
    return schema;
  }
  register<T>(_name: string, schema: T): T {
    return schema;
  }
  registerComponent(): void {}
}

/** The route definition itself, typed as the real package's (so the app's type carries every route). */
export const createRoute = (<R>(config: R): R => config) as unknown as typeof import('@hono/zod-openapi').createRoute;

class RuntimeOpenAPIHono extends Hono {
  openAPIRegistry = new RouteRecords();
  defaultHook: Hook | undefined;
  #parentApp: RuntimeOpenAPIHono | undefined;

  constructor(init?: ConstructorParameters<typeof Hono>[0] & { defaultHook?: Hook }) {
    super(init);
    this.defaultHook = init?.defaultHook;
  }

  #resolveDefaultHook(): Hook | undefined {
    if (this.defaultHook) return this.defaultHook;
    const seen = new Set<RuntimeOpenAPIHono>([this]);
    let parent = this.#parentApp;
    while (parent && !seen.has(parent)) {
      if (parent.defaultHook) return parent.defaultHook;
      seen.add(parent);
      parent = parent.#parentApp;
    }
    return undefined;
  }

  openapi = ({ middleware: routeMiddleware, hide, ...route }: RouteConfig, handler: MiddlewareHandler, hook?: Hook) => {
    if (!hide) this.openAPIRegistry.registerPath(route);
    const effectiveHook: Hook =
      hook ??
      ((result, c) => {
        const resolved = this.#resolveDefaultHook();
        return resolved ? resolved(result, c) : undefined;
      });
    const validate = (target: 'query' | 'param' | 'header' | 'cookie' | 'json' | 'form', schema: ZodType) =>
      zValidator(target, schema, effectiveHook as never) as unknown as MiddlewareHandler;
    const validators: MiddlewareHandler[] = [];
    if (route.request?.query) validators.push(validate('query', route.request.query));
    if (route.request?.params) validators.push(validate('param', route.request.params));
    if (route.request?.headers) validators.push(validate('header', route.request.headers));
    if (route.request?.cookies) validators.push(validate('cookie', route.request.cookies));
    const bodyContent = route.request?.body?.content;
    if (bodyContent) {
      const declaredMediaTypes = Object.keys(bodyContent);
      if (declaredMediaTypes.some((type) => isZod(bodyContent[type]?.schema) && (isJSONContentType(type) || isFormContentType(type)))) {
        validators.push(async (c: Context, next: Next) => {
          const contentType = c.req.header('content-type');
          if (contentType) {
            if (!declaredMediaTypes.some((type) => matchesMediaType(contentType, type))) throw new HTTPException(415, { message: 'Unsupported Media Type' });
          } else if (await hasRequestBody(c)) throw new HTTPException(415, { message: 'Unsupported Media Type' });
          await next();
        });
      }
      for (const mediaType of declaredMediaTypes) {
        const schema = bodyContent[mediaType]?.schema;
        if (!isZod(schema)) continue;
        for (const [target, matches] of [
          ['json', isJSONContentType],
          ['form', isFormContentType],
        ] as const) {
          if (!matches(mediaType)) continue;
          const validator = validate(target, schema);
          if (route.request?.body?.required) {
            validators.push(validator);
          } else {
            validators.push(async (c: Context, next: Next) => {
              const type = c.req.header('content-type');
              if (type && matches(type)) return await validator(c, next);
              c.req.addValidatedData(target, {});
              await next();
            });
          }
        }
      }
    }
    const middleware = routeMiddleware ? (Array.isArray(routeMiddleware) ? routeMiddleware : [routeMiddleware]) : [];
    this.on([route.method], [route.path.replaceAll(/\/{(.+?)}/g, '/:$1')], ...middleware, ...validators, handler);
    return this;
  };

  // Typed loosely: the real signature is generic over the sub-app's types, which only the real class's declaration carries.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override route(path: string, app: any): any {
    super.route(path, app);
    if (!(app instanceof RuntimeOpenAPIHono)) return this;
    app.#parentApp ??= this;
    const prefix = path.replaceAll(/:([^/]+)/g, '{$1}');
    const base = (app as unknown as { _basePath: string })._basePath.replaceAll(/:([^/]+)/g, '{$1}');
    for (const { route } of app.openAPIRegistry.definitions) {
      this.openAPIRegistry.registerPath({ ...route, path: mergePath(prefix, base, route.path) });
    }
    return this;
  }
}

/** The class, typed as the real package's so that `hc` and the route types come out the same. */
export const OpenAPIHono = RuntimeOpenAPIHono as unknown as typeof import('@hono/zod-openapi').OpenAPIHono;

function isZod(x: unknown): x is ZodType {
  if (typeof x !== 'object' || x === null) return false;
  const schema = x as Record<string, unknown>;
  return typeof schema.parse === 'function' && typeof schema.safeParse === 'function' && typeof schema.parseAsync === 'function' && typeof schema.safeParseAsync === 'function';
}

function isJSONContentType(contentType: string): boolean {
  return /^application\/([a-z-.]+\+)?json/i.test(contentType);
}

function isFormContentType(contentType: string): boolean {
  const lower = contentType.toLowerCase();
  return lower.startsWith('multipart/form-data') || lower.startsWith('application/x-www-form-urlencoded');
}

const jsonRequestRegex = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const multipartRequestRegex = /^multipart\/form-data(;\s?boundary=[a-zA-Z0-9'"()+_,\-./:=?]+)?$/i;
const urlencodedRequestRegex = /^application\/x-www-form-urlencoded(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

function matchesMediaType(contentType: string, mediaType: string): boolean {
  if (mediaType === '*/*') return true;
  if (isJSONContentType(mediaType)) return jsonRequestRegex.test(contentType);
  if (isFormContentType(mediaType)) return multipartRequestRegex.test(contentType) || urlencodedRequestRegex.test(contentType);
  const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (mediaType.endsWith('/*')) return essence.startsWith(mediaType.slice(0, -1).toLowerCase());
  return essence === mediaType.toLowerCase();
}

async function hasRequestBody(c: Context): Promise<boolean> {
  const raw = c.req.raw;
  if (raw.body === null) return false;
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0;
  const body = raw.clone().body;
  if (body === null) return false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
