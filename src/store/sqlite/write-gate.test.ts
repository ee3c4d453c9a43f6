import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit, runInTransaction, WriteGate } from './write-gate.js';

describe('GroupCommit on a real file', () => {
  let dir: string;
  let db: Database.Database;
  let other: Database.Database;
  let gate: WriteGate;
  let ends: boolean[];
  let commits: GroupCommit;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentboard-gc-'));
    db = new Database(join(dir, 'g.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
    other = new Database(join(dir, 'g.db'));
    gate = new WriteGate();
    ends = [];
    commits = new GroupCommit(db, gate, 64, (ok) => ends.push(ok));
  });
  afterEach(() => {
    db.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const put = (k: string, v: number) => db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run(k, v);
  const seenByOther = (k: string) => other.prepare('SELECT v FROM t WHERE k = ?').pluck().get(k);

  it('transactions asked for in one turn share one commit, in the order asked', async () => {
    const order: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        commits.run(async () => {
          order.push(i);
          put(`k${i}`, i);
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => i * 2));
    expect(order).toEqual([...Array(10).keys()]);
    expect(ends).toEqual([true]);
    expect(other.prepare('SELECT count(*) FROM t').pluck().get()).toBe(10);
  });

  it('a caller is answered only once its write is committed (another connection sees it)', async () => {
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((k, i) =>
        commits.run(async () => put(k, i)).then(() => seenByOther(k)),
      ),
    );
    expect(seen).toEqual([0, 1, 2]);
  });

  it('a job that throws is refused alone: the others commit, run again without it, and later jobs see the state without it', async () => {
    const outcomes = await Promise.allSettled([
      commits.run(async () => put('first', 1)),
      commits.run(async () => {
        put('doomed', 2);
        throw new Error('refused');
      }),
      commits.run(async () => db.prepare('SELECT count(*) FROM t WHERE k = ?').pluck().get('doomed')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused' });
    expect((outcomes[2] as PromiseFulfilledResult<unknown>).value).toBe(0);
    expect(seenByOther('first')).toBe(1);
    expect(seenByOther('doomed')).toBeUndefined();
    expect(ends).toEqual([false, true]);
  });

  it('when the transaction itself is lost, the job that lost it is refused and the others still land', async () => {
    let runs = 0;
    const outcomes = await Promise.allSettled([
      commits.run(async () => {
        runs++;
        return put('lost', 1);
      }),
      commits.run(async () => {
        // What SQLite does on its own after a full disk or an I/O error: the whole transaction goes.
        db.exec('ROLLBACK');
        throw new Error('disk I/O error');
      }),
      commits.run(async () => put('later', 3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'disk I/O error' });
    expect(seenByOther('lost')).toBe(1);
    expect(seenByOther('later')).toBe(3);
    expect(runs).toBe(2);
    expect(ends).toEqual([false, true]);
  });

  it('a batch that cannot take the write lock refuses its jobs; nothing is left half done', async () => {
    db.pragma('busy_timeout = 20');
    other.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([commits.run(async () => put('x', 1)), commits.run(async () => put('y', 2))]);
    other.exec('COMMIT');
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as { code?: string }).code === 'SQLITE_BUSY')).toBe(true);
    expect(await commits.run(async () => put('z', 3))).toMatchObject({ changes: 1 });
    expect(seenByOther('x')).toBeUndefined();
  });

  it('at most maxBatch jobs share a commit', async () => {
    const small = new GroupCommit(db, gate, 3, (ok) => ends.push(ok));
    await Promise.all(Array.from({ length: 7 }, (_, i) => small.run(async () => put(`m${i}`, i))));
    expect(ends).toEqual([true, true, true]);
  });

  it('waits while another transaction holds the connection, and sees only what it committed', async () => {
    let release!: () => void;
    const held = runInTransaction(db, gate, async () => {
      put('outer', 1);
      await new Promise<void>((r) => (release = r));
      put('outer-late', 2);
    });
    const queued = commits.run(async () => db.prepare('SELECT count(*) FROM t').pluck().get());
    // A guarded call (any outside the holder) waits as well.
    let waited = false;
    const guarded = gate.wait()!.then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(waited).toBe(false);
    release();
    await held;
    await guarded;
    // It ran after the holder committed, and saw both of its rows.
    expect(await queued).toBe(2);
    expect(gate.wait()).toBeNull();
  });
});
