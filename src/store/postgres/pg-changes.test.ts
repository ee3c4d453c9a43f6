import { describe, expect, it } from 'vitest';
import { mayWrite } from './pg-changes.js';

describe('mayWrite: which statements move the change mark', () => {
  it('counts every kind of write, in any case and inside a CTE', () => {
    for (const sql of [
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
    ]) {
      expect(mayWrite(sql), sql).toBe(true);
    }
  });

  it('leaves reads and row locks out', () => {
    for (const sql of [
      'SELECT id FROM objects WHERE id = $1',
      'SELECT q.seq FROM embed_queue q ORDER BY q.next_at LIMIT 10 FOR UPDATE SKIP LOCKED',
      'SELECT seq FROM embed_queue FOR NO KEY UPDATE',
      'SELECT updated_at, inserted FROM votes',
    ]) {
      expect(mayWrite(sql), sql).toBe(false);
    }
  });

  it('answers a text alike when it comes again (kept by text)', () => {
    const write = 'INSERT INTO settings (key, value) VALUES ($1, $2)';
    const read = 'SELECT value FROM settings WHERE key = $1';
    for (let i = 0; i < 3; i++) {
      expect(mayWrite(write)).toBe(true);
      expect(mayWrite(read)).toBe(false);
    }
  });
});
