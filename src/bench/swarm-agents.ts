/**
 * The agents of `npm run bench:swarm`: each searches, reads two results, publishes one time in
 * five and votes one time in five, pausing a think time between steps; one in ten holds an event
 * stream. What each step took is recorded while the window is open.
 */
import { prng } from './prng.js';
import { sentence, VOCABULARY } from './vocabulary.js';

export const OPERATIONS = ['search', 'read', 'publish', 'vote'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface Tally {
  latencies: Record<Operation, number[]>;
  errors: Record<Operation, number>;
  /** Whether steps now count (the warm-up does not). */
  open: boolean;
}

export const newTally = (): Tally => ({
  latencies: { search: [], read: [], publish: [], vote: [] },
  errors: { search: 0, read: 0, publish: 0, vote: 0 },
  open: false,
});

/** A step's answer must come within this, or it counts as an error. */
const STEP_TIMEOUT_MS = 10_000;

export interface AgentRun {
  url: string;
  thinkMs: number;
  stopAt: number;
  tally: Tally;
}

/** One agent until `stopAt`; `n` seeds its choices and names its address. */
export async function agent(n: number, run: AgentRun): Promise<void> {
  const rand = prng(n + 1);
  const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': address };
  const pause = () => new Promise((r) => setTimeout(r, run.thinkMs * (0.5 + rand())));
  const step = async <T>(op: Operation, send: () => Promise<Response>, read: (r: Response) => Promise<T>): Promise<T | null> => {
    const started = performance.now();
    try {
      const r = await send();
      const value = await read(r);
      if (run.tally.open) {
        if (r.ok) run.tally.latencies[op].push(performance.now() - started);
        else run.tally.errors[op]++;
      }
      return r.ok ? value : null;
    } catch {
      if (run.tally.open) run.tally.errors[op]++;
      return null;
    }
  };
  const stream = n % 10 === 0 ? holdStream(run.url, address, run.stopAt) : null;
  await new Promise((r) => setTimeout(r, rand() * run.thinkMs));
  while (Date.now() < run.stopAt) {
    const q = `${VOCABULARY[Math.floor(rand() * VOCABULARY.length)]} ${VOCABULARY[Math.floor(rand() * VOCABULARY.length)]}`;
    const found = await step('search', () => fetch(`${run.url}/search?q=${encodeURIComponent(q)}`, { headers, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) }), async (r) => ((await r.json()) as { results?: { id: string }[] }).results ?? []);
    await pause();
    const ids = (found ?? []).slice(0, 2).map((o) => o.id);
    for (const id of ids) {
      await step('read', () => fetch(`${run.url}/p/${id}`, { headers, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) }), (r) => r.arrayBuffer());
      await pause();
    }
    if (rand() < 0.2) {
      const body = JSON.stringify({ content: sentence(Math.floor(rand() * 2 ** 31)), topics: ['swarm'] });
      await step('publish', () => fetch(`${run.url}/findings`, { method: 'POST', headers, body, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) }), (r) => r.arrayBuffer());
      await pause();
    }
    if (rand() < 0.2 && ids[0]) {
      await step('vote', () => fetch(`${run.url}/p/${ids[0]}/verify`, { method: 'POST', headers, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) }), (r) => r.arrayBuffer());
      await pause();
    }
  }
  await stream;
}

/** An event stream held open until `stopAt`, its events read and dropped. */
async function holdStream(url: string, address: string, stopAt: number): Promise<void> {
  try {
    const res = await fetch(`${url}/events?topic=swarm`, { headers: { 'x-forwarded-for': address }, signal: AbortSignal.timeout(Math.max(1, stopAt - Date.now())) });
    const reader = res.body!.getReader();
    while (!(await reader.read()).done);
  } catch {
    // Ended by its time-out: the run is over.
  }
}
