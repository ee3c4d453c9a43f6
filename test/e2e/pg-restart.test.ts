/**
 * PostgreSQL stopped and started again under load, beneath two board processes sharing it (a
 * private cluster: never the machine's own server). No acknowledged write is lost; while it is
 * down every answer is a success or a 503 problem with Retry-After, never a 500 or a hang; health
 * says `d1: error`; both instances serve again soon after it is back, with no restart; and an event
 * stream replayed from the start misses nothing that was acknowledged.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_CI } from '../helpers/ci.js';
import { startInstances, type startServer } from '../helpers/cli.js';
import { PrivatePg, privatePgUnavailable } from '../helpers/private-pg.js';
import { readSse } from '../helpers/sse.js';

const why = await privatePgUnavailable();
if (why && ON_CI) throw new Error(`the PostgreSQL restart test must run on CI: ${why}`);
if (why) console.warn(`skipped: PostgreSQL restarted under load: ${why}`);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WRITERS = 16;
const READERS = 16;
/** Past this, an answer counts as a hang. */
const ANSWER_WITHIN_MS = 15_000;

type Outcome = { status: number; problem: boolean; retryAfter: boolean } | { hang: true } | { refused: string };

describe.skipIf(why !== null)('PostgreSQL stopped and started under load, two instances', () => {
  let pgc: PrivatePg;
  const boards: Awaited<ReturnType<typeof startServer>>[] = [];
  beforeAll(async () => {
    pgc = await PrivatePg.create();
    const env = {
      DATABASE_URL: pgc.url,
      REDIS_URL,
      REDIS_PREFIX: `pg-restart-${randomBytes(4).toString('hex')}:`,
      EMBEDDINGS: 'none',
      RATE_LIMIT_ANON_WRITES: '0',
      RATE_LIMIT_READS: '0',
      TRUST_PROXY: 'true',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
    };
    boards.push(...(await startInstances(env, 2)));
  }, 90_000);
  afterAll(async () => {
    for (const b of boards) b.child.kill('SIGKILL');
    await pgc?.drop();
  }, 60_000);

  const request = async (url: string, init?: RequestInit): Promise<{ outcome: Outcome; body: any }> => {
    try {
      const r = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
      const text = await r.text();
      const problem = r.headers.get('content-type') === 'application/problem+json';
      return { outcome: { status: r.status, problem, retryAfter: r.headers.has('retry-after') }, body: text && !problem && r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
    } catch (err) {
      return { outcome: (err as Error).name === 'TimeoutError' ? { hang: true } : { refused: (err as Error).message }, body: null };
    }
  };
  const publish = (i: number, n: number) =>
    request(`${boards[i % 2]!.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: `restart finding ${i}-${n} ${randomBytes(4).toString('hex')}`, topics: ['pg-restart'] }) });

  it('loses nothing acknowledged, refuses with 503 while down, and serves again with no restart', async () => {
    const acknowledged: string[] = [];
    const outcomes: Outcome[] = [];
    let stop = false;
    const writer = async (i: number) => {
      for (let n = 0; !stop; n++) {
        const { outcome, body } = await publish(i, n);
        outcomes.push(outcome);
        if ('status' in outcome && outcome.status === 201) acknowledged.push(body.object.id);
        if (!('status' in outcome) || outcome.status !== 201) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const reader = async (i: number) => {
      for (; !stop; ) {
        const { outcome } = await request(`${boards[i % 2]!.url}/findings?topic=pg-restart&limit=5`);
        outcomes.push(outcome);
        if (!('status' in outcome) || outcome.status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const load = [...Array.from({ length: WRITERS }, (_, i) => writer(i)), ...Array.from({ length: READERS }, (_, i) => reader(i))];
    await new Promise((r) => setTimeout(r, 1500));
    const before = acknowledged.length;

    await pgc.stop();
    // Down: both instances say so, and keep answering.
    for (const b of boards) {
      const health = await request(`${b.url}/health`);
      expect(health.outcome).toMatchObject({ status: 503 });
      expect(await (await fetch(`${b.url}/health`)).json()).toMatchObject({ status: 'degraded', d1: 'error' });
    }
    await new Promise((r) => setTimeout(r, 1500));
    await pgc.start();
    const back = Date.now();
    // Both instances serve within 5 s of PostgreSQL answering again, with no restart.
    for (const [i] of boards.entries()) {
      let ok = false;
      while (!ok && Date.now() - back < 5000) {
        const { outcome } = await publish(i, -1);
        ok = 'status' in outcome && outcome.status === 201;
        if (!ok) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ok, `instance ${i} serves again`).toBe(true);
    }
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await Promise.all(load);

    expect(acknowledged.length).toBeGreaterThan(before);
    const bad = outcomes.filter((o) => !('status' in o) || (o.status >= 300 && !(o.status === 503 && o.problem && o.retryAfter)));
    expect(bad).toEqual([]);
    expect(outcomes.some((o) => 'status' in o && o.status === 503)).toBe(true);

    // Every acknowledged object is there, on either instance.
    for (const [n, id] of acknowledged.entries()) expect((await fetch(`${boards[n % 2]!.url}/p/${id}`)).status).toBe(200);
    // And the event log has each of them: a stream replayed from the start hears every one.
    const res = await fetch(`${boards[1]!.url}/events?topic=pg-restart`, { headers: { 'last-event-id': '0' } });
    const sse = readSse(res);
    try {
      const seen = new Set<string>();
      const deadline = Date.now() + 10_000;
      while (acknowledged.some((id) => !seen.has(id)) && Date.now() < deadline) {
        for (const e of sse.events) if (e.event === 'created') seen.add(e.data.object.id);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(acknowledged.filter((id) => !seen.has(id))).toEqual([]);
    } finally {
      await sse.close();
    }
  }, 90_000);
});
