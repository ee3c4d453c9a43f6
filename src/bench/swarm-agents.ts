/**
 * The agents of `npm run bench:swarm`: each searches, reads two results, publishes one time in
 * five and votes one time in five, pausing a think time between steps; one in ten holds an event
 * stream. What each step took is recorded while the window is open.
 */
import { Agent, request } from 'node:http';
import { prng } from './prng.js';
import { sentence, VOCABULARY } from './vocabulary.js';

export const OPERATIONS = ['search', 'read', 'publish', 'vote'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface Tally {
  latencies: Record<Operation, number[]>;
  errors: Record<Operation, number>;
  /** Steps refused for load: 503 with Retry-After. */
  shed: Record<Operation, number>;
  /** Whether steps now count (the warm-up does not). */
  open: boolean;
}

export const newTally = (): Tally => ({
  latencies: { search: [], read: [], publish: [], vote: [] },
  errors: { search: 0, read: 0, publish: 0, vote: 0 },
  shed: { search: 0, read: 0, publish: 0, vote: 0 },
  open: false,
});

/** A step's answer must come within this, or it counts as an error. */
const STEP_TIMEOUT_MS = 10_000;

/**
 * Each agent holds one kept-alive connection, as an agent of its own would: node:http rather
 * than fetch, so that the load generator takes less of the cores it shares with the board.
 */
const ownSocket = () => new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  retryAfter: boolean;
  body: string;
}

/** One request; rejects on a network error or when no complete answer came within STEP_TIMEOUT_MS. */
function send(sockets: Agent, url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: sockets, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] !== undefined, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

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
  const sockets = ownSocket();
  const step = (op: Operation, method: string, path: string, body?: string) => timed(run.tally, op, () => send(sockets, `${run.url}${path}`, method, headers, body));
  const stream = n % 10 === 0 ? holdStream(run.url, address, run.stopAt) : null;
  await new Promise((r) => setTimeout(r, rand() * run.thinkMs));
  while (Date.now() < run.stopAt) {
    const q = `${VOCABULARY[Math.floor(rand() * VOCABULARY.length)]} ${VOCABULARY[Math.floor(rand() * VOCABULARY.length)]}`;
    const found = await step('search', 'GET', `/search?q=${encodeURIComponent(q)}`);
    await pause();
    const ids = found ? ((JSON.parse(found) as { results?: { id: string }[] }).results ?? []).slice(0, 2).map((o) => o.id) : [];
    for (const id of ids) {
      await step('read', 'GET', `/p/${id}`);
      await pause();
    }
    if (rand() < 0.2) {
      await step('publish', 'POST', '/findings', JSON.stringify({ content: sentence(Math.floor(rand() * 2 ** 31)), topics: ['swarm'] }));
      await pause();
    }
    if (rand() < 0.2 && ids[0]) {
      await step('vote', 'POST', `/p/${ids[0]}/verify`);
      await pause();
    }
  }
  await stream;
  sockets.destroy();
}

/**
 * One step, counted when it began while the window was open (the first steps, which open every
 * agent's connection at once, belong to the warm-up): a 2xx's time, a refusal for load (503 with
 * Retry-After) as shed, anything else (another status, a network error, a time-out) as an error.
 * Answers the body of a 2xx, else null.
 */
async function timed(tally: Tally, op: Operation, go: () => Promise<Answer>): Promise<string | null> {
  const started = performance.now();
  const counted = tally.open;
  try {
    const a = await go();
    const ok = a.status >= 200 && a.status < 300;
    if (counted) {
      if (ok) tally.latencies[op].push(performance.now() - started);
      else if (a.status === 503 && a.retryAfter) tally.shed[op]++;
      else tally.errors[op]++;
    }
    return ok ? a.body : null;
  } catch {
    if (counted) tally.errors[op]++;
    return null;
  }
}

/** An event stream held open until `stopAt`, its events read and dropped. */
function holdStream(url: string, address: string, stopAt: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}/events?topic=swarm`, { headers: { 'x-forwarded-for': address }, agent: false, signal: AbortSignal.timeout(Math.max(1, stopAt - Date.now())) }, (res) => {
      res.resume();
      res.on('error', () => undefined);
      res.on('close', resolve);
    });
    // Ended by its time-out: the run is over.
    req.on('error', () => resolve());
    req.end();
  });
}
