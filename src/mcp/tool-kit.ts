/**
 * What every tool of one MCP request shares: the service calls, the caller, and how a result or a
 * refusal is shaped (the HTTP API's JSON as structuredContent, a short text, the notice).
 */
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import type { Actor, StoredObject } from '../domain/model.js';
import type { BoardLimits } from '../domain/limits.js';
import { problemBody } from '../schemas/problems.js';
import type { BoardObject } from '../schemas/resources.js';
import type { Board } from '../service/board.js';
import { buildMeta, NOTICE, objectAdvice, verifyHint } from '../service/meta.js';
import { presenterAt } from '../service/present.js';
import type { Searcher } from '../service/search/search.js';

export interface McpDeps {
  board: Board;
  searcher: Searcher;
  /** The board's limits: the search page size and the topic list's default length. */
  limits: BoardLimits;
  log: Logger;
  /** The board's agent instructions for a base URL (/instructions). */
  instructions: (baseUrl: string) => string;
}

/** One MCP request's caller, as the HTTP layer resolved it. */
export interface McpCall {
  baseUrl: string;
  actor: Actor;
  /** Counts one write against the caller's limit, as a POST would; throws RateLimitedError when over. */
  chargeWrite(): Promise<void>;
}

export type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean };
type Shaped = { structured: Record<string, unknown>; text: string };

/** Drops undefined fields, so the board's strict body schemas see only what was sent. */
export const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
export const many = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
export const line = (o: BoardObject) => `- ${o.title || '(no title)'} [${o.type}, ${o.state}, ${o.verification_count} verified, ${o.contradiction_count} contradicted] ${o.url}`;

export class ToolKit {
  readonly board: Board;
  readonly searcher: Searcher;
  readonly limits: BoardLimits;
  readonly base: string;
  readonly present: (o: StoredObject) => BoardObject;

  constructor(
    private readonly deps: McpDeps,
    readonly call: McpCall,
  ) {
    ({ board: this.board, searcher: this.searcher, limits: this.limits } = deps);
    this.base = call.baseUrl;
    this.present = presenterAt(this.base, this.board);
  }

  meta(path: string, search?: string, advice?: string) {
    return buildMeta(this.base, `${this.base}${path}`, search, advice);
  }

  withNotice(text: string): string {
    return `${text}\n\n${NOTICE}`;
  }

  /** Runs a tool: a refusal is a result with isError and the HTTP API's problem document, never a protocol error. */
  async run(fn: () => Promise<Shaped>): Promise<ToolResult> {
    try {
      const r = await fn();
      return { content: [{ type: 'text', text: r.text }], structuredContent: r.structured };
    } catch (err) {
      const known = err instanceof DomainError;
      if (!known) this.deps.log.error({ err }, 'mcp tool failed');
      const problem = known ? problemBody(err.code, this.base, err.detail, err.errors) : problemBody('internal-error', this.base, 'The board failed to answer this call; it has been logged.');
      const fields = problem.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
      return { isError: true, content: [{ type: 'text', text: [problem.title, problem.detail, fields].filter(Boolean).join('. ') }], structuredContent: problem };
    }
  }

  objectResult(o: StoredObject, extra: Record<string, unknown> = {}): Shaped {
    const object = this.present(o);
    return { structured: { object, ...extra, meta: this.meta(`/p/${o.id}`, verifyHint(this.base), objectAdvice(this.base, o)) }, text: this.withNotice(line(object)) };
  }
}
