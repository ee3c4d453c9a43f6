/**
 * Registers each route once for three purposes: the Hono handler, the OpenAPI description
 * (from the same zod schemas that validate) and the table that answers 405 with `Allow`.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Handler, Hono } from 'hono';
import type { AppEnv } from './env.js';

type Method = RouteConfig['method'];

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class Router {
  readonly registry = new OpenAPIRegistry();
  readonly #patterns: { method: string; regex: RegExp }[] = [];

  constructor(private readonly app: Hono<AppEnv>) {}

  /** A documented route; `config.path` uses OpenAPI `{param}` syntax. */
  route(config: RouteConfig, handler: Handler<AppEnv>): void {
    this.registry.registerPath(config);
    this.#add(config.method, config.path, handler);
  }

  /** A route left out of the API description (HTML pages, assets). */
  page(method: Method, path: string, handler: Handler<AppEnv>): void {
    this.#add(method, path, handler);
  }

  /** Methods the path answers to, for `Allow`; empty when no route matches the path. */
  allowed(path: string): string[] {
    const methods = new Set(this.#patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  /** The OpenAPI 3.1 document; build it once and serve the result. */
  document(info: { title: string; version: string; description: string }): object {
    return new OpenApiGeneratorV31(this.registry.definitions).generateDocument({ openapi: '3.1.0', info });
  }

  #add(method: Method, path: string, handler: Handler<AppEnv>): void {
    const upper = method.toUpperCase();
    const regex = new RegExp(`^${path.split(/(\{\w+\})/).map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : escapeRegex(part))).join('')}/?$`);
    this.#patterns.push({ method: upper, regex });
    this.app.on(upper, path.replace(/\{(\w+)\}/g, ':$1'), handler);
  }
}
