import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { z } from 'zod';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `public`: no key; `read`: any key; `write`: a write key. */
export type Access = 'public' | 'read' | 'write';

/**
 * One endpoint of the API: the route registers it, validates input with its schemas, and the OpenAPI
 * document is generated from it — so the document cannot describe something the server does not do.
 */
export interface Endpoint {
  method: Method;
  /** Koa's form: `/api/projects/:projectId`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** A key scoped to some projects is refused (403): installation-wide actions. */
  allProjects?: boolean;
  /** How the key is sent: `Authorization: Bearer <key>` (default), or as the password of HTTP Basic auth (the Git remote). */
  auth?: 'bearer' | 'basic';
  query?: z.ZodObject;
  /** Request headers the endpoint reads (the hook routes' signatures and delivery ids). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** A request body that is not JSON: its media type and a description. */
  rawBody?: { mediaType: string; description: string };
  /** The JSON body of a 200 answer. */
  response?: z.ZodType;
  /** The JSON body of a 202 answer: accepted, and going on in the background. */
  acceptedResponse?: z.ZodType;
  /** Another success answer that is not JSON (`/api/docs` is HTML): its media type and a description. */
  rawResponse?: { mediaType: string; description: string };
  /** A 302 answer instead of a body (a browser's navigation): where it leads. */
  redirect?: string;
  /** A protocol switch instead of an answer (101): the terminal's WebSocket. */
  upgrade?: { protocol: 'websocket'; description: string };
  /** Server-Sent Events: each event name and the shape of its `data`. */
  stream?: Record<string, z.ZodType>;
  /** Error statuses beyond those every endpoint of its kind can answer (see openapi/document.ts). */
  errors?: readonly number[];
}

export const endpoint = <E extends Endpoint>(e: E): E => e;

/** Registers `handler` for the endpoint's method and path. */
export function route(router: Router, e: Endpoint, handler: RouterMiddleware) {
  router[e.method](e.path, handler);
}

/** The names of the path's parameters, in order. */
export const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
