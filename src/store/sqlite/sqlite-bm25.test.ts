/**
 * The lexical leg's scorer against FTS5's own: for the same index and query, every match's
 * score is `bm25(4, 2, 1)` negated, and its marks are what FTS5's AND and phrase queries say.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Fts5Bm25 } from './sqlite-bm25.js';
import { ftsToken } from './sqlite-rows.js';

const TEXTS: [title: string, topics: string, content: string][] = [
  ['Connection pool exhausted', 'postgres pool', 'The pool ran out of connections under load; pool size was 10.'],
  ['Retry with backoff', 'node', 'Connections refused: the pool was exhausted, so we retried with exponential backoff.'],
  ['Pools', 'pool pools', 'pool pool pool'],
  ['Café fermé', 'misc', 'Le café est fermé; connection reset by peer (ECONNRESET) at https://ex.com/a?b=c'],
  ['Upgrading', 'k8s', 'Rolling upgrade of the connection proxy; exhausted retries on 3 pods.'],
  ['Nothing', 'misc', 'unrelated words only'],
];
const QUERIES = [['pool', 'exhausted'], ['connection'], ['connections', 'pool'], ['cafe', 'ferme'], ['ex.com/a?b=c', 'econnreset'], ['exhausted', 'pool', 'connection'], ['retried', 'backoff']];

function index(stemmed: boolean) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(title, topics_text, content, tokenize = '${stemmed ? 'porter ' : ''}unicode61 remove_diacritics 2')`);
  const insert = db.prepare('INSERT INTO docs (rowid, title, topics_text, content) VALUES (?, ?, ?, ?)');
  TEXTS.forEach((t, i) => insert.run(i + 1, ...t));
  return { db, bm25: new Fts5Bm25((text) => db.prepare(text), 'docs', stemmed) };
}

describe('Fts5Bm25', () => {
  for (const stemmed of [false, true]) {
    it(`scores every match as bm25(4, 2, 1) does, and marks them as FTS5 matches them (${stemmed ? 'stems' : 'words'})`, () => {
      const { db, bm25 } = index(stemmed);
      let compared = 0;
      for (const terms of QUERIES) {
        const any = terms.map(ftsToken).join(' OR ');
        const rows = db.prepare('SELECT rowid, -bm25(docs, 4.0, 2.0, 1.0), title, topics_text, content FROM docs WHERE docs MATCH ?').raw(true).all(any) as [number, number, string, string, string][];
        const set = (match: string) => new Set(db.prepare('SELECT rowid FROM docs WHERE docs MATCH ?').pluck().all(match) as number[]);
        const all = set(terms.map(ftsToken).join(' AND '));
        const phrase = set(ftsToken(terms.join(' ')));
        const score = bm25.scorer(terms, bm25.weigh(terms));
        for (const [rowid, expected, title, topicsText, content] of rows) {
          const got = score({ title, topicsText, content });
          expect(got.score).toBeCloseTo(expected, 9);
          expect([got.allTerms, got.phrase]).toEqual([all.has(rowid), phrase.has(rowid)]);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(15);
    });
  }

  it('keeps a term count until the index has grown by more than a hundredth, then counts again', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE docs USING fts5(title, topics_text, content, tokenize = 'unicode61 remove_diacritics 2')");
    const insert = (content: string) => db.prepare("INSERT INTO docs (title, topics_text, content) VALUES ('t', '', ?)").run(content);
    for (let i = 0; i < 199; i++) insert(`filler ${i}`);
    insert('pool');
    const bm25 = new Fts5Bm25((text) => db.prepare(text), 'docs', false);
    const texts = { title: 't', topicsText: '', content: 'pool' };
    // Weighed afresh each time, as each query is.
    const score = () => bm25.scorer(['pool'], bm25.weigh(['pool']))(texts).score;
    const exact = () => -(db.prepare("SELECT bm25(docs, 4.0, 2.0, 1.0) FROM docs WHERE docs MATCH 'pool' LIMIT 1").pluck().get() as number);
    expect(score()).toBeCloseTo(exact(), 9);
    // 201 rows: within a hundredth of 200, so the count of one is kept though two rows hold the word now.
    insert('pool');
    expect(score()).toBeGreaterThan(exact() + 0.1);
    insert('more filler');
    insert('more filler');
    expect(score()).toBeCloseTo(exact(), 9);
  });
});
