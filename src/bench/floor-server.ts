/**
 * The floors `npm run bench` compares the board with: a bare node:http server doing only what
 * the operation needs from the engine, in its own process.
 *
 *   bytes <routes.json>      the recorded bytes of each `METHOD path` (reads at the socket's speed)
 *   sqlite-search <db>       GET /search?q=…: one FTS5 MATCH (all words) + bm25(4,2,1) + snippet + expiry join, top 10
 *   sqlite-insert <db>       POST: one INSERT into an FTS5-indexed table (WAL, synchronous=NORMAL)
 *   pg-search <url>          GET /search?q=…: one tsquery match (all words) + ts_rank + expiry filter, top 10
 *   pg-insert <url>          POST: one INSERT into a table with a GIN-indexed tsvector
 *
 * Prints {"url": …} once it listens.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';

type Handler = (req: IncomingMessage, body: string) => Promise<{ status: number; contentType: string; body: string }>;

const json = (status: number, value: unknown) => ({ status, contentType: 'application/json', body: JSON.stringify(value) });
const queryOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://floor').searchParams.get('q') ?? '';
const words = (q: string) => q.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const contentOf = (body: string) => String((JSON.parse(body) as { content?: unknown }).content ?? '');

function bytes(routesFile: string): Handler {
  const routes = JSON.parse(readFileSync(routesFile, 'utf8')) as Record<string, { status: number; contentType: string; body: string }>;
  return async (req) => routes[`${req.method} ${req.url}`] ?? json(404, {});
}

function sqliteSearch(file: string): Handler {
  const db = new Database(file, { readonly: true });
  const stmt = db.prepare(
    `SELECT o.id, o.title, o.created_at, snippet(objects_fts, 2, '', '', '…', 24) AS snippet, bm25(objects_fts, 4.0, 2.0, 1.0) AS score
     FROM objects_fts JOIN objects o ON o.seq = objects_fts.rowid
     WHERE objects_fts MATCH ? AND o.live_until > ? ORDER BY score LIMIT 10`,
  );
  return async (req) => json(200, { results: stmt.all(words(queryOf(req)).map((w) => `"${w}"`).join(' '), Date.now()) });
}

function sqliteInsert(file: string): Handler {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, content TEXT NOT NULL, created_at INTEGER NOT NULL);
    CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(content, content = 'docs', content_rowid = 'id');
    CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN INSERT INTO docs_fts (rowid, content) VALUES (new.id, new.content); END;`);
  const insert = db.prepare('INSERT INTO docs (content, created_at) VALUES (?, ?)');
  return async (_req, body) => json(201, { id: Number(insert.run(contentOf(body), Date.now()).lastInsertRowid) });
}

function pgSearch(url: string): Handler {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return async (req) => {
    const r = await pool.query(
      `SELECT o.id, o.title, o.created_at, left(o.content, 200) AS snippet, ts_rank(o.words, q) AS score
       FROM objects o, plainto_tsquery('simple', $1) q WHERE o.words @@ q AND o.live_until > $2 ORDER BY score DESC LIMIT 10`,
      [queryOf(req), Date.now()],
    );
    return json(200, { results: r.rows });
  };
}

async function pgInsert(url: string): Promise<Handler> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(`CREATE TABLE IF NOT EXISTS floor_docs (id bigserial PRIMARY KEY, content text NOT NULL, created_at bigint NOT NULL,
    words tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED);
    CREATE INDEX IF NOT EXISTS floor_docs_words ON floor_docs USING gin (words)`);
  return async (_req, body) => {
    const r = await pool.query<{ id: string }>('INSERT INTO floor_docs (content, created_at) VALUES ($1, $2) RETURNING id', [contentOf(body), Date.now()]);
    return json(201, { id: Number(r.rows[0]!.id) });
  };
}

async function main(): Promise<void> {
  const [mode, target] = process.argv.slice(2);
  if (!mode || !target) throw new Error('usage: floor-server <mode> <target>');
  const handler: Handler =
    mode === 'bytes'
      ? bytes(target)
      : mode === 'sqlite-search'
        ? sqliteSearch(target)
        : mode === 'sqlite-insert'
          ? sqliteInsert(target)
          : mode === 'pg-search'
            ? pgSearch(target)
            : mode === 'pg-insert'
              ? await pgInsert(target)
              : (() => {
                  throw new Error(`unknown mode ${mode}`);
                })();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handler(req, Buffer.concat(chunks).toString('utf8')).then(
        (r) => {
          res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': Buffer.byteLength(r.body) });
          res.end(r.body);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((e: unknown) => {
  process.stderr.write(`floor failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
