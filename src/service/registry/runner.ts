/**
 * The registry's background work inside `serve`: every tick, one process (elected through a kv
 * lock, renewed while it works) syncs the listing when the last sync is older than the sync
 * interval, then probes the servers that are due. Other processes find the lock taken and skip.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../ports/clock.js';
import type { Kv } from '../../ports/kv.js';
import { probeDue, type ProbeRunDeps, type ProbeSummary } from './probe-runner.js';
import { syncRegistry, type SyncDeps, type SyncSummary } from './sync.js';

const LOCK = 'registry:runner';
const SYNCED = 'registry:synced';

export interface RunnerDeps {
  kv: Kv;
  clock: Clock;
  log: Logger;
  sync: SyncDeps;
  probes: ProbeRunDeps;
  syncIntervalMs: number;
  /** How often to look for due work. */
  tickMs?: number;
  /** How long the lock outlives its last renewal if this process dies. */
  lockTtlMs?: number;
}

export type CycleResult = { ran: false; reason: 'locked' | 'stopped' | 'kv-error' } | { ran: true; sync: SyncSummary | null; probes: ProbeSummary };

export class RegistryRunner {
  readonly #owner = randomUUID();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<unknown> | null = null;
  readonly #stop = new AbortController();

  constructor(private readonly deps: RunnerDeps) {}

  start(): void {
    this.#schedule(5_000);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** One tick's work; exposed so tests and the CLI run it without timers. */
  async cycle(): Promise<CycleResult> {
    const { kv, clock, log } = this.deps;
    const ttl = this.deps.lockTtlMs ?? 5 * 60_000;
    const hold = () => kv.lock(LOCK, this.#owner, ttl, clock.now());
    try {
      if (this.#stop.signal.aborted) return { ran: false, reason: 'stopped' };
      if (!(await hold())) return { ran: false, reason: 'locked' };
    } catch (err) {
      log.warn({ err }, 'registry runner: kv unavailable, skipping this round');
      return { ran: false, reason: 'kv-error' };
    }
    try {
      let sync: SyncSummary | null = null;
      if ((await kv.get(SYNCED, clock.now())) === null) {
        try {
          sync = await syncRegistry(this.deps.sync, { onPage: () => void hold().catch(() => undefined), signal: this.#stop.signal });
          log.info({ ...sync }, 'registry synced');
          await kv.set(SYNCED, String(clock.now()), this.deps.syncIntervalMs, clock.now());
        } catch (err) {
          if (this.#stop.signal.aborted) return { ran: false, reason: 'stopped' };
          // Probes still run on what is known; the sync is retried in a few minutes, not at once.
          log.warn({ err }, 'registry sync failed');
          await kv.set(SYNCED, 'failed', Math.min(this.deps.syncIntervalMs, 10 * 60_000), clock.now());
        }
      }
      const probes = await probeDue(this.deps.probes, {
        signal: this.#stop.signal,
        proceed: async () => !this.#stop.signal.aborted && (await hold().catch(() => false)),
      });
      if (probes.probed > 0) log.info({ ...probes }, 'registry probes done');
      return { ran: true, sync, probes };
    } finally {
      await kv.unlock(LOCK, this.#owner).catch(() => undefined);
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stop.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#running = this.cycle()
        .catch((err: unknown) => this.deps.log.error({ err }, 'registry runner failed'))
        .finally(() => {
          const tick = this.deps.tickMs ?? 60_000;
          this.#schedule(Math.round(tick * (0.9 + 0.2 * Math.random())));
        });
    }, delayMs);
    this.#timer.unref();
  }
}
