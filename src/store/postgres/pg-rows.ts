/**
 * What the PostgreSQL halves share: named parameters, the object row and its mapping, the
 * "live" filter, and the writes several halves make (as in sqlite-rows.ts).
 */
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import { liveUntil } from '../../domain/state.js';
import { authorReputableSql, liveParams, liveTimeSql, trustSql, type Filters } from '../sql-fragments.js';
import { correctionsSql, standingFacts, toStoredObject, type ObjectColumns } from '../object-columns.js';
import type { PgStatements, Statement } from './pg-session.js';

export type Params = Record<string, unknown>;

const compiled = new Map<string, { text: string; names: string[] }>();

/** `@name` placeholders to `$n` (one number per distinct name), compiled once per SQL text. */
function compile(sql: string): { text: string; names: string[] } {
  let c = compiled.get(sql);
  if (!c) {
    const names: string[] = [];
    // `@@` is the text-search match operator, never a placeholder.
    const text = sql.replace(/(?<!@)@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      return `$${i + 1}`;
    });
    c = { text, names };
    compiled.set(sql, c);
  }
  return c;
}

function bind(sql: string, params: Params): [string, unknown[]] {
  const c = compile(sql);
  return [
    c.text,
    c.names.map((n) => {
      if (!(n in params)) throw new Error(`missing SQL parameter @${n}`);
      return params[n];
    }),
  ];
}

/** `sql` with its `@name` placeholders bound, as a statement to send later (PgSession.transaction's closing). */
export function statement(sql: string, params: Params = {}): Statement {
  const [text, values] = bind(sql, params);
  return { text, params: values };
}

export async function all<R>(db: PgStatements, sql: string, params: Params = {}): Promise<R[]> {
  return (await db.query<R>(...bind(sql, params))).rows;
}

export async function one<R>(db: PgStatements, sql: string, params: Params = {}): Promise<R | undefined> {
  return (await db.query<R>(...bind(sql, params))).rows[0];
}

/**
 * The values of `columns` over the rows of `sql`, a column at a time, sent as one JSON value:
 * for a search's candidates node-postgres would build an object per row and parse every field
 * on its own. A column at a time, the server aggregates each column once its type is known,
 * where an array per row looked each value's type up again, and JSON.parse builds one array per
 * column (docs/performance.md).
 * The rows come in no given order, alike in every column: a caller wanting one sorts. Integers,
 * finite floats (shortest exact text either way), booleans and text read back alike.
 */
export async function allAsColumns<C extends readonly unknown[][]>(
  db: PgStatements,
  sql: string,
  columns: readonly string[],
  params: Params = {},
  /** Common table expressions `sql` reads (`with`), and a value of them sent after the columns, once (`after`). */
  also?: { with: string; after: string },
): Promise<C> {
  const row = await one<{ columns: string }>(
    db,
    `${also ? `WITH ${also.with} ` : ''}SELECT json_build_array(${[...columns.map((c) => `json_agg(r.${c})`), ...(also ? [also.after] : [])].join(', ')})::text AS columns FROM (${sql}) r`,
    params,
  );
  // Over no rows, each aggregate is null.
  return (JSON.parse(row!.columns) as (unknown[] | null)[]).map((values) => values ?? []) as unknown as C;
}

/** Runs a write; answers the number of rows it touched. */
export async function run(db: PgStatements, sql: string, params: Params = {}): Promise<number> {
  return (await db.query(...bind(sql, params))).rowCount;
}

export interface ObjectRow extends ObjectColumns<boolean> {
  topics: string[];
}

export { authorReputableSql, limitSql, liveParams, liveSql } from '../sql-fragments.js';

/** An object's own columns, as stored, on the table aliased `o`. */
const OBJECT_COLUMNS = [
  'seq', 'id', 'type', 'title', 'content', 'topics', 'source_url', 'parent_id', 'author_id', 'author_trust', 'author_domain',
  'created_at', 'expires_at', 'last_verified_at', 'verification_count', 'contradiction_count', 'hidden', 'withdrawn', 'injection',
  'supersedes', 'superseded_by', 'quarantined', 'space', 'promoted_to',
]
  .map((c) => `o.${c}`)
  .join(', ');

export const SELECT_OBJECT =
  `${OBJECT_COLUMNS}, (SELECT count(*) FROM objects r WHERE r.parent_id = o.id AND ${liveTimeSql('r')}) AS reply_count, ` +
  `${authorReputableSql('o')} AS author_reputable, ` +
  `${correctionsSql((row, order) => `json_agg(${row} ORDER BY ${order})`, (a, b) => `json_build_array(${a}, ${b})`)} AS corrections`;

export const toObject = (row: ObjectRow): StoredObject => toStoredObject(row, row.topics, Boolean);

export async function getObjectRow(db: PgStatements, id: string, live: LiveCriteria): Promise<StoredObject | null> {
  const row = await one<ObjectRow>(db, `SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id = @id`, { id, ...liveParams(live) });
  return row ? toObject(row) : null;
}

/**
 * Every write to an object's facts goes through here, as in sqlite-rows.ts: `set` is applied,
 * and the standing the domain derives from the facts it leaves is stored on the object and its
 * topic rows, only when it moved. Answers the object as written (null when there is none) from
 * the same statement: each statement of a write transaction is a round trip its batch waits on
 * (pg-group-commit.ts). `withSql` is a data-modifying CTE to run in that statement too; with
 * `onlyIf`, a condition on the row, nothing is written (and null answered) where it does not hold.
 */
export async function writeFacts(db: PgStatements, id: string, set: string, params: Params, live: LiveCriteria, withSql = '', onlyIf?: string): Promise<StoredObject | null> {
  const row = await one<ObjectRow & { live_until: number }>(
    db,
    `${withSql} UPDATE objects o SET ${set} WHERE o.id = @id${onlyIf ? ` AND ${onlyIf}` : ''} RETURNING o.live_until, ${SELECT_OBJECT}`,
    { ...params, ...liveParams(live), id },
  );
  if (!row) return null;
  const until = liveUntil(standingFacts(row, Boolean), live.disputeMinContradictions);
  if (until !== row.live_until) {
    await run(db, 'WITH o AS (UPDATE objects SET live_until = @until WHERE id = @id) UPDATE object_topics SET live_until = @until WHERE object_id = @id', { id, until });
  }
  return toObject(row);
}

/** Adds the type and topic filters shared by both search legs. */
export function addFilters(q: Filters, where: string[], params: Params): void {
  if (q.minTrust) where.push(trustSql('o', q.minTrust));
  if (q.types?.length) {
    where.push('o.type = ANY(@types::text[])');
    params.types = [...q.types];
  }
  if (q.topics?.length) {
    where.push('EXISTS (SELECT 1 FROM object_topics t WHERE t.object_id = o.id AND t.topic = ANY(@topics::text[]))');
    params.topics = [...q.topics];
  }
}
