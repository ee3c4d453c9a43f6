import { describe, expect, it } from 'vitest';
import { BatchQueue, type BatchSettings } from './batch-queue.js';

const turn = () => new Promise((r) => setImmediate(r));

/** A queue (on one connection, unless `settings` say otherwise) whose batches wait until the test ends them, recording what each took and when. */
function harness(settings: BatchSettings = { maxBatch: 10, inFlight: 1 }) {
  const log: string[] = [];
  const running: { jobs: number[]; release: () => void; end: () => void }[] = [];
  const queue = new BatchQueue<number>(settings, (jobs, release) => {
    log.push(`start ${jobs.join(',')}`);
    return new Promise<void>((end) => running.push({ jobs, release, end: () => { log.push(`end ${jobs.join(',')}`); end(); } }));
  });
  return { queue, log, running };
}

/** Job 1's batch running, jobs 2 and 3 waiting for the next. */
async function oneRunningTwoWaiting() {
  const h = harness();
  h.queue.add(1);
  await turn();
  h.queue.add(2);
  h.queue.add(3);
  return h;
}

describe('BatchQueue', () => {
  it('takes what arrives while a batch runs into the next, which starts once that batch ends', async () => {
    const { log, running } = await oneRunningTwoWaiting();
    await turn();
    expect(log).toEqual(['start 1']);
    running[0]!.end();
    await turn();
    await turn();
    expect(log).toEqual(['start 1', 'end 1', 'start 2,3']);
  });

  it('starts the next batch the moment a batch releases its connection, before that batch ends', async () => {
    const { queue, log, running } = await oneRunningTwoWaiting();
    running[0]!.release();
    // At once, not a turn later: the batch settles its callers after releasing.
    expect(log).toEqual(['start 1', 'start 2,3']);
    running[0]!.end();
    await turn();
    // Its end frees no second connection: a later job waits for the running batch.
    queue.add(4);
    await turn();
    await turn();
    expect(log).toEqual(['start 1', 'start 2,3', 'end 1']);
    running[1]!.release();
    expect(log.at(-1)).toBe('start 4');
  });

  it('behind a running batch, starts the next only once minBehind jobs wait, or once the running batch releases', async () => {
    const { queue, log, running } = harness({ maxBatch: 10, inFlight: 2, minBehind: 3 });
    // None running: one job goes alone.
    queue.add(1);
    await turn();
    expect(log).toEqual(['start 1']);
    // One running and a place free: two waiting jobs stay waiting, the third sends them.
    queue.add(2);
    queue.add(3);
    await turn();
    expect(log).toEqual(['start 1']);
    queue.add(4);
    await turn();
    expect(log).toEqual(['start 1', 'start 2,3,4']);
    // Both places taken, then one freed: fewer than minBehind wait behind the other, until it releases too.
    queue.add(5);
    await turn();
    running[0]!.release();
    await turn();
    expect(log).toEqual(['start 1', 'start 2,3,4']);
    running[1]!.release();
    expect(log.at(-1)).toBe('start 5');
  });

  it('after a release with nothing waiting, the next job goes in a turn of its own', async () => {
    const { queue, log, running } = harness();
    queue.add(1);
    await turn();
    running[0]!.release();
    queue.add(2);
    expect(log).toEqual(['start 1']);
    await turn();
    expect(log).toEqual(['start 1', 'start 2']);
  });
});
