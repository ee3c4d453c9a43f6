/**
 * Builds the running board from a Config: opens the store and kv, wires the domain and the
 * app. The CLI and the tests both come through here, so they run the same wiring.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createApp, type AppWiring } from './app.js';
import { Health } from './service/health.js';
import { Keys } from './service/keys.js';
import { RegistryRecords } from './service/registry/records.js';
import { ConfigError, type Config } from './config.js';
import { Board } from './service/board.js';
import { ReadCache } from './service/read-cache.js';
import { cachedTopicCounts } from './service/topic-counts.js';
import { EventHub } from './service/event-hub.js';
import { systemClock } from './clock.js';
import type { Clock, Ids } from './ports/clock.js';
import { UlidGenerator } from './domain/ulid.js';
import { MemoryKv } from './kv/memory-kv.js';
import type { Kv } from './ports/kv.js';
import type { Store } from './ports/store.js';
import { EmbedWorker } from './service/search/embed-worker.js';
import { Quarantines } from './service/quarantine.js';
import { Spaces } from './service/spaces.js';
import { Promotions } from './service/promote.js';
import { PublishVectors } from './service/search/publish-vectors.js';
import { Searcher } from './service/search/search.js';
import { LocalEmbedder } from './embed/local-embedder.js';
import { OpenAiEmbedder } from './embed/openai-embedder.js';
import { ThreadedEmbedder } from './embed/threaded-embedder.js';
import type { Embedder } from './ports/embedder.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import type { ProbeRunDeps } from './service/registry/probe-runner.js';
import { RegistryRunner } from './service/registry/runner.js';
import type { SyncDeps } from './service/registry/sync.js';
import { BoardMetrics } from './metrics.js';
import { APP_VERSION } from './version.js';

/**
 * The store DATABASE_URL names. PostgreSQL's modules (and Redis's, in openKv) load only when
 * named: a board on SQLite does not carry their drivers in its memory.
 */
export async function openStore(config: Config, log?: Logger): Promise<Store> {
  const d = config.database;
  const warn = log ? (message: string, err: unknown) => log.warn({ err }, message) : undefined;
  if (d.kind === 'sqlite') {
    return new SqliteStore(d.path, { busyTimeoutMs: d.busyTimeoutMs, groupCommitMax: d.groupCommitMax, checkpointMs: d.checkpointMs, searchThread: d.searchThread, searchCacheKib: d.searchCacheKib, vectors: d.vectors, memoryIndex: d.memoryIndex, ...(warn ? { warn } : {}) });
  }
  const [{ PgStore }, { PoolSession }] = await Promise.all([import('./store/postgres/pg-store.js'), import('./store/postgres/pg-session.js')]);
  // The pool, for transactions and every statement not below; the group commits' own
  // connections, one per lane, and as many as each kind of search pipeline for parsing searches'
  // words (PgRoot.genericPlans, pg-bm25.ts); the publishes' one
  // (PgRoot.pipeline); and the pipelined ones of searches and reads by key (PgRoot.pipelines).
  const pool = { url: d.url, max: d.poolSize, connectTimeoutMs: d.connectTimeoutMs, genericMax: d.groupCommit.inFlight + d.readPipelines, readPipelines: d.readPipelines, lockTimeoutMs: d.lockTimeoutMs };
  return new PgStore(new PoolSession(pool), {
    vectorIndex: d.vectorIndex,
    memoryIndex: d.memoryIndex,
    groupCommit: d.groupCommit,
    publishPipeline: d.publishPipeline,
    publishPipelineMin: d.publishPipelineMin,
    indexUpkeepMs: d.indexUpkeepMs,
    ...(warn ? { warn } : {}),
  });
}

/**
 * A board on PostgreSQL is one that may run as several instances, and without Redis its rate
 * limits, signature nonces, key-directory cache and registry lock would each be per process:
 * wrong as soon as a second instance starts. So it does not start without REDIS_URL.
 */
export function checkSharedState(config: Config): void {
  if (config.database.kind === 'postgres' && !config.redisUrl) {
    throw new ConfigError([
      'REDIS_URL: is required when DATABASE_URL is PostgreSQL: rate limits, signature nonces, the key-directory cache and the registry lock must be shared by every instance (use sqlite:<path> for a single process without Redis)',
    ]);
  }
}

/** Redis when REDIS_URL is set (shared by every process), else in-process (one process only). */
export async function openKv(config: Config, clock: Clock = systemClock): Promise<Kv> {
  // In process, the kv's memory of used signatures begins with the process.
  if (!config.redisUrl) return new MemoryKv({ since: clock.now() });
  const { RedisKv } = await import('./kv/redis-kv.js');
  return new RedisKv(config.redisUrl, config.redisPrefix, () => clock.now());
}

/** The embedder EMBEDDINGS selects, or null for `none`. */
export function openEmbedder(config: Config): Embedder | null {
  const e = config.embeddings;
  switch (e.provider) {
    case 'none':
      return null;
    case 'local': {
      const here = new LocalEmbedder(e.model, e.modelsDir, e.threads);
      if (e.ownThread === false) return here;
      // auto on PostgreSQL: the request thread waits on the database about half its time, and a
      // static lookup's text costs it less than the hand-over to a thread would (docs/performance.md).
      if (e.ownThread === 'auto' && config.database.kind === 'postgres' && here.loadStaticLookup()) return here;
      return new ThreadedEmbedder(e.model, e.modelsDir, e.threads);
    }
    case 'openai':
      return new OpenAiEmbedder({ url: e.url!, apiKey: e.apiKey, model: e.model, batchSize: e.batchSize, timeoutMs: e.timeoutMs, retries: e.retries });
  }
}

/**
 * What makes vectors as objects are published: a local model, where the store keeps vectors.
 * A remote one would hold every publish up by a round trip: its objects are left to the queue.
 */
function publishVectors(config: Config, store: Store, embedder: Embedder | null, metrics: BoardMetrics): PublishVectors | null {
  const e = config.embeddings;
  if (!embedder || e.provider !== 'local' || e.atPublishMs === 0 || !store.capabilities.vectors.available) return null;
  return new PublishVectors(embedder, e.atPublishMs, metrics.embedding);
}

/**
 * What registry sync and probes need, from the configuration; null when REGISTRY_URL=off.
 * Shared by the background runner and the `sync-registry` command.
 */
export function registryDeps(config: Config, store: Store, clock: Clock, log: Logger, metrics?: BoardMetrics): { sync: SyncDeps; probes: ProbeRunDeps } | null {
  const r = config.registry;
  if (!r.url) return null;
  return {
    sync: {
      registry: store.registry,
      clock,
      url: r.url,
      fetch: { allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: 30_000, maxBytes: r.listingMaxBytes },
    },
    probes: {
      registry: store.registry,
      clock,
      log,
      probe: { timeoutMs: r.probeTimeoutMs, maxBytes: r.probeMaxBytes, allowPrivateNetwork: config.allowPrivateNetwork, maxTools: r.maxTools, version: APP_VERSION },
      intervalMs: r.probeIntervalSeconds * 1000,
      recheckMs: r.recheckIntervalSeconds * 1000,
      concurrency: r.probeConcurrency,
      ...(metrics ? { onProbed: (outcome: string) => metrics.probed(outcome) } : {}),
    },
  };
}

export interface Overrides {
  store?: Store;
  kv?: Kv;
  clock?: Clock;
  ids?: Ids;
  /** Replaces the configured embedder (null: none). */
  embedder?: Embedder | null;
}

export interface Board$ {
  services: AppWiring;
  app: ReturnType<typeof createApp>;
  /** Null when there is no semantic leg to feed. */
  worker: EmbedWorker | null;
  /** Null when REGISTRY_URL=off. */
  registryRunner: RegistryRunner | null;
  /** Starts background work: the embedding backfill and queue worker, registry sync and probes. */
  startBackground(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Brings a store up to this code: migrations, then each object's standing re-derived if the
 * rule or DISPUTE_MIN_CONTRADICTIONS changed since it was stored. Answers how many moved.
 */
export async function prepareStore(store: Store, config: Config): Promise<number> {
  await store.migrate();
  return store.objects.restate(config.limits.disputeMinContradictions);
}

/** The worker that embeds queued objects, for a store with a semantic leg. */
function embedWorker(config: Config, deps: { store: Store; embedder: Embedder; clock: Clock; log: Logger; metrics: BoardMetrics }): EmbedWorker {
  const e = config.embeddings;
  return new EmbedWorker({
    ...deps,
    batchSize: e.batchSize,
    disputeMinContradictions: config.limits.disputeMinContradictions,
    warmUpMs: e.timeoutMs,
    leaseMs: e.leaseSeconds * 1000,
    provider: e.provider,
    metrics: deps.metrics.embedding,
  });
}

/** Opens everything, migrates, and returns the app with a close() that releases it all. */
export async function buildBoard(config: Config, log: Logger, overrides: Overrides = {}): Promise<Board$> {
  const clock = overrides.clock ?? systemClock;
  if (!overrides.kv) checkSharedState(config);
  const store = overrides.store ?? (await openStore(config, log));
  const kv = overrides.kv ?? (await openKv(config, clock));
  const restated = await prepareStore(store, config);
  if (restated > 0) log.info({ objects: restated }, 'standing re-derived under the current rule');
  // A kv that cannot be reached does not stop the board: health reports it and limits fail open.
  await kv.ready().catch((err: unknown) => log.warn({ err }, 'kv store not reachable at start; continuing'));
  const voterSecret = config.voterHashSecret ?? (await store.initSetting('voter_hash_secret', randomBytes(32).toString('base64url')));
  const ids = overrides.ids ?? new UlidGenerator(clock);
  const embedder = overrides.embedder !== undefined ? overrides.embedder : openEmbedder(config);
  const metrics = new BoardMetrics(store);
  const spaces = new Spaces({ store, clock, ids, limits: config.spaces });
  const board = new Board({ store, clock, ids, limits: config.limits, vectors: publishVectors(config, store, embedder, metrics), grants: spaces });
  const readCache = new ReadCache({ store, now: () => clock.now(), maxBytes: config.readCacheBytes, expiringFraction: config.limits.expiringFraction });
  const searcher = new Searcher({ store, clock, limits: config.limits, log, embedder, semanticBudgetMs: config.embeddings.semanticBudgetMs, topicCounts: cachedTopicCounts(readCache, store.objects), memo: readCache });
  const semantic = searcher.semanticStatus();
  if (!semantic.available) log.warn({ reason: semantic.reason }, 'semantic search unavailable; search answers lexically');
  const worker = embedder && semantic.available ? embedWorker(config, { store, embedder, clock, log, metrics }) : null;
  const events = new EventHub({ store, live: () => board.live(), log, pollMs: config.events.pollMs, retainMs: config.events.retainMs, retainMin: config.events.retainMin, now: () => clock.now() });
  const services: AppWiring = {
    config,
    store,
    kv,
    voterSecret,
    board,
    searcher,
    clock,
    log,
    metrics,
    events,
    readCache,
    keys: new Keys({ identity: store.identity, clock }),
    quarantines: new Quarantines({ store, clock, ids, limits: config.limits }),
    spaces,
    promotions: new Promotions({ store, clock, ids, board }),
    health: new Health({ store, kv, searcher }),
    registry: new RegistryRecords({ registry: store.registry, board, registryUrl: config.registry.url }),
  };
  const registry = registryDeps(config, store, clock, log, metrics);
  const registryRunner = registry ? new RegistryRunner({ kv, clock, log, ...registry, syncIntervalMs: config.registry.syncIntervalSeconds * 1000 }) : null;
  return {
    services,
    app: createApp(services),
    worker,
    registryRunner,
    async startBackground() {
      await events.start();
      await worker?.start();
      registryRunner?.start();
    },
    async close() {
      await Promise.all([events.close(), worker?.stop(), registryRunner?.stop()]);
      // An embedder given in overrides is the caller's to close.
      await Promise.allSettled([store.close(), kv.close(), overrides.embedder === undefined ? embedder?.close?.() : undefined]);
    },
  };
}
