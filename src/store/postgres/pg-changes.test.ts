import { describe, expect, it } from 'vitest';
import { mayWrite } from './pg-changes.js';

/** Every kind of write, in any case and inside a CTE. */
const WRITES = [
  'INSERT INTO votes (object_id) VALUES ($1)',
  'update objects set hidden = true where id = $1',
  'DELETE FROM events WHERE seq <= $1',
  'WITH o AS (INSERT INTO objects (id) VALUES ($1) RETURNING seq) SELECT seq FROM o',
  'TRUNCATE objects',
  'CREATE INDEX x ON objects (id)',
  'ALTER TABLE objects ADD COLUMN y int',
  'DROP INDEX x',
  'MERGE INTO objects o USING s ON o.id = s.id WHEN MATCHED THEN DO NOTHING',
  'COPY objects FROM STDIN',
];

/** Reads, row locks, and names that only hold a keyword. */
const READS = [
  'SELECT id FROM objects WHERE id = $1',
  'SELECT q.seq FROM embed_queue q ORDER BY q.next_at LIMIT 10 FOR UPDATE SKIP LOCKED',
  'SELECT seq FROM embed_queue FOR NO KEY UPDATE',
  'SELECT updated_at, inserted FROM votes',
];

describe('mayWrite: which statements move the change mark', () => {
  it.each(WRITES)('counts %s', (sql) => expect(mayWrite(sql)).toBe(true));

  it.each(READS)('leaves out %s', (sql) => expect(mayWrite(sql)).toBe(false));

  it('answers a text alike when it comes again (kept by text)', () => {
    for (let i = 0; i < 3; i++) {
      expect(mayWrite(WRITES[0]!)).toBe(true);
      expect(mayWrite(READS[0]!)).toBe(false);
    }
  });
});
