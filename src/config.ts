/**
 * Configuration: read once from the environment (the table in config-env.ts), validated with
 * zod, frozen and passed down. No other module reads `process.env`. Every limit of
 * docs/decisions.md is a setting, with the decided value as its default; the README's
 * configuration table mirrors the environment table.
 */
import type { VectorIndexSettings } from './ports/search-index.js';
import type { BoardLimits } from './domain/limits.js';
import type { SpaceLimits } from './domain/spaces.js';
import { CheckedEnvSchema, type Env } from './config-env.js';

export type { Env } from './config-env.js';


export interface Config {
  port: number;
  host: string;
  baseUrl: string | undefined;
  database:
    | { kind: 'sqlite'; path: string; busyTimeoutMs: number; groupCommitMax: number; checkpointMs: number; searchThread: boolean; searchCacheKib: number; vectors: 'memory' | 'scan'; memoryIndex: VectorIndexSettings }
    | {
        kind: 'postgres';
        url: string;
        poolSize: number;
        connectTimeoutMs: number;
        /** REQUEST_TIMEOUT_MS: how long a statement waits for a lock. */
        lockTimeoutMs: number;
        groupCommit: { maxBatch: number; inFlight: number };
        publishPipeline: number;
        publishPipelineMin: number;
        readPipelines: number;
        indexUpkeepMs: number;
        vectorIndex: 'auto' | 'memory';
        memoryIndex: VectorIndexSettings;
      };
  redisUrl: string | undefined;
  redisPrefix: string;
  embeddings: {
    provider: 'local' | 'openai' | 'none';
    model: string;
    url?: string;
    apiKey?: string;
    modelsDir: string;
    threads: number;
    ownThread: boolean | 'auto';
    batchSize: number;
    timeoutMs: number;
    retries: number;
    leaseSeconds: number;
    semanticBudgetMs: number;
    /** How long a publish waits for its object's vector (local models; 0: never). */
    atPublishMs: number;
  };
  adminToken: string | undefined;
  metricsToken: string | undefined;
  /** Shown in the about document; the URL falls back to the board's own address. */
  operator: { name: string; url: string | undefined; contact: string };
  voterHashSecret: string | undefined;
  trustProxy: boolean;
  /** Load shedding: requests served at once per process at most (0: no limit), and the read latency the limit adapts to (0: fixed). */
  shedding: { maxInFlight: number; minInFlight: number; targetMs: number };
  rateLimits: {
    anonWrites: number;
    signedWrites: number;
    reads: number;
    writeWindowSeconds: number;
    readWindowSeconds: number;
  };
  registry: {
    /** Undefined when REGISTRY_URL=off: no sync, no probes. */
    url: string | undefined;
    syncIntervalSeconds: number;
    probeTimeoutMs: number;
    probeIntervalSeconds: number;
    recheckIntervalSeconds: number;
    probeConcurrency: number;
    probeMaxBytes: number;
    listingMaxBytes: number;
    maxTools: number;
  };
  allowPrivateNetwork: boolean;
  readCacheBytes: number;
  events: {
    heartbeatMs: number;
    retryMs: number;
    maxStreamsPerClient: number;
    pollMs: number;
    retainMs: number;
    retainMin: number;
  };
  signatures: {
    skewSeconds: number;
    directoryMinCacheSeconds: number;
    directoryMaxCacheSeconds: number;
    directoryFailureCacheSeconds: number;
    directoryLocalEntries: number;
    directoryTimeoutMs: number;
    directoryMaxBytes: number;
  };
  logLevel: Env['LOG_LEVEL'];
  logFlushMs: number;
  maxBodyBytes: number;
  shutdownGraceMs: number;
  /** Connections the kernel queues for the process before it accepts them. */
  listenBacklog: number;
  limits: BoardLimits;
  spaces: SpaceLimits;
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Parses the environment (or any record of strings) into a frozen Config.
 * Empty strings count as unset. Throws ConfigError listing every issue at once.
 */
function databaseSettings(e: Env): Config['database'] {
  const memoryIndex: VectorIndexSettings = { approximateFrom: e.VECTORS_APPROXIMATE_FROM, probes: e.VECTORS_PROBES };
  return e.DATABASE_URL.startsWith('sqlite:')
    ? ({ kind: 'sqlite', path: e.DATABASE_URL.slice('sqlite:'.length) || ':memory:', busyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS, groupCommitMax: e.SQLITE_GROUP_COMMIT_MAX, checkpointMs: e.SQLITE_CHECKPOINT_MS, searchThread: e.SQLITE_SEARCH_THREAD, searchCacheKib: e.SQLITE_SEARCH_CACHE_KIB, vectors: e.SQLITE_VECTORS, memoryIndex } as const)
    : ({
        kind: 'postgres',
        url: e.DATABASE_URL,
        poolSize: e.DATABASE_POOL_SIZE,
        connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        lockTimeoutMs: e.REQUEST_TIMEOUT_MS,
        groupCommit: { maxBatch: e.PG_GROUP_COMMIT_MAX, inFlight: e.PG_GROUP_COMMIT_CONNECTIONS },
        publishPipeline: e.PG_PUBLISH_PIPELINE,
        publishPipelineMin: e.PG_PUBLISH_PIPELINE_MIN,
        readPipelines: e.PG_READ_PIPELINES,
        indexUpkeepMs: e.PG_INDEX_UPKEEP_MS,
        vectorIndex: e.VECTOR_INDEX,
        memoryIndex,
      } as const);
}

function embeddingSettings(e: Env): Config['embeddings'] {
  return {
    provider: e.EMBEDDINGS,
    model: e.EMBEDDINGS_MODEL,
    ...(e.EMBEDDINGS_URL ? { url: e.EMBEDDINGS_URL } : {}),
    ...(e.EMBEDDINGS_API_KEY ? { apiKey: e.EMBEDDINGS_API_KEY } : {}),
    modelsDir: e.MODELS_DIR,
    threads: e.EMBEDDINGS_THREADS,
    ownThread: e.EMBEDDINGS_OWN_THREAD,
    batchSize: e.EMBEDDINGS_BATCH,
    timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
    retries: e.EMBEDDINGS_RETRIES,
    leaseSeconds: e.EMBEDDINGS_LEASE_SECONDS,
    semanticBudgetMs: e.SEMANTIC_BUDGET_MS,
    atPublishMs: e.EMBEDDINGS_AT_PUBLISH_MS,
  };
}

function registrySettings(e: Env): Config['registry'] {
  return {
    url: e.REGISTRY_URL === 'off' ? undefined : e.REGISTRY_URL.replace(/\/+$/, ''),
    syncIntervalSeconds: e.REGISTRY_SYNC_INTERVAL,
    probeTimeoutMs: e.PROBE_TIMEOUT_MS,
    probeIntervalSeconds: e.PROBE_INTERVAL,
    recheckIntervalSeconds: e.PROBE_RECHECK_INTERVAL,
    probeConcurrency: e.PROBE_CONCURRENCY,
    probeMaxBytes: e.PROBE_MAX_BYTES,
    listingMaxBytes: e.REGISTRY_MAX_BYTES,
    maxTools: e.REGISTRY_MAX_TOOLS,
  };
}

function limitSettings(e: Env): BoardLimits {
  return {
    reputation: {
      windowDays: e.REPUTABLE_WINDOW_DAYS,
      minVerifications: e.REPUTABLE_MIN_VERIFICATIONS,
      minVoters: e.REPUTABLE_MIN_VOTERS,
      maxContradictionShare: e.REPUTABLE_MAX_CONTRADICTION_SHARE,
    },
    lifetimeMinSeconds: e.LIFETIME_MIN,
    lifetimes: {
      finding: { defaultSeconds: e.LIFETIME_FINDING_DEFAULT, maxSeconds: e.LIFETIME_FINDING_MAX },
      request: { defaultSeconds: e.LIFETIME_REQUEST_DEFAULT, maxSeconds: e.LIFETIME_REQUEST_MAX },
      artifact: { defaultSeconds: e.LIFETIME_ARTIFACT_DEFAULT, maxSeconds: e.LIFETIME_ARTIFACT_MAX },
      status: { defaultSeconds: e.LIFETIME_STATUS_DEFAULT, maxSeconds: e.LIFETIME_STATUS_MAX },
    },
    expiringFraction: e.EXPIRING_FRACTION,
    disputeMinContradictions: e.DISPUTE_MIN_CONTRADICTIONS,
    topicsDefaultLimit: e.TOPICS_DEFAULT_LIMIT,
    topicListingThreshold: e.TOPIC_LISTING_THRESHOLD,
    relatedTopicsMax: e.RELATED_TOPICS_MAX,
    supersedeChainMax: e.SUPERSEDE_CHAIN_MAX,
    quarantine: { batch: e.QUARANTINE_BATCH, settleWaitMs: e.QUARANTINE_SETTLE_WAIT_MS },
    search: {
      defaultLimit: e.SEARCH_DEFAULT_LIMIT,
      snippetChars: e.SEARCH_SNIPPET_CHARS,
      candidates: e.SEARCH_CANDIDATES,
      lexicalWindow: e.SEARCH_LEXICAL_WINDOW,
      halfLifeDays: e.FRESHNESS_HALF_LIFE_DAYS,
      semanticWeight: e.SEARCH_SEMANTIC_WEIGHT,
      hybridTierWeight: e.SEARCH_HYBRID_TIER_WEIGHT,
      relevanceExponent: e.SEARCH_RELEVANCE_EXPONENT,
      lexicalFloor: e.SEARCH_LEXICAL_FLOOR,
      semanticFloor: e.SEARCH_SEMANTIC_FLOOR,
      semanticMinSimilarity: e.SEARCH_SEMANTIC_MIN_SIMILARITY,
      freshnessFloor: e.FRESHNESS_FLOOR,
    },
  };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = CheckedEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const database = databaseSettings(e);
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    baseUrl: e.BASE_URL,
    database,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    embeddings: embeddingSettings(e),
    adminToken: e.ADMIN_TOKEN,
    metricsToken: e.METRICS_TOKEN,
    operator: { name: e.OPERATOR_NAME, url: e.OPERATOR_URL, contact: e.OPERATOR_CONTACT },
    voterHashSecret: e.VOTER_HASH_SECRET,
    trustProxy: e.TRUST_PROXY,
    shedding: { maxInFlight: e.MAX_IN_FLIGHT, minInFlight: Math.min(e.SHED_MIN_IN_FLIGHT, e.MAX_IN_FLIGHT), targetMs: e.SHED_TARGET_MS },
    rateLimits: {
      anonWrites: e.RATE_LIMIT_ANON_WRITES,
      signedWrites: e.RATE_LIMIT_SIGNED_WRITES,
      reads: e.RATE_LIMIT_READS,
      writeWindowSeconds: e.RATE_LIMIT_WRITE_WINDOW,
      readWindowSeconds: e.RATE_LIMIT_READ_WINDOW,
    },
    registry: registrySettings(e),
    allowPrivateNetwork: e.ALLOW_PRIVATE_NETWORK,
    readCacheBytes: e.READ_CACHE_BYTES,
    events: {
      heartbeatMs: e.EVENTS_HEARTBEAT_MS,
      retryMs: e.EVENTS_RETRY_MS,
      maxStreamsPerClient: e.EVENTS_MAX_STREAMS_PER_CLIENT,
      pollMs: e.EVENTS_POLL_MS,
      retainMs: e.EVENTS_RETAIN_HOURS * 3_600_000,
      retainMin: e.EVENTS_RETAIN_MIN,
    },
    signatures: {
      skewSeconds: e.SIGNATURE_SKEW_SECONDS,
      directoryMinCacheSeconds: e.KEY_DIRECTORY_MIN_CACHE,
      directoryMaxCacheSeconds: e.KEY_DIRECTORY_MAX_CACHE,
      directoryFailureCacheSeconds: e.KEY_DIRECTORY_FAILURE_CACHE,
      directoryLocalEntries: e.KEY_DIRECTORY_LOCAL_ENTRIES,
      directoryTimeoutMs: e.KEY_DIRECTORY_TIMEOUT_MS,
      directoryMaxBytes: e.KEY_DIRECTORY_MAX_BYTES,
    },
    logLevel: e.LOG_LEVEL,
    logFlushMs: e.LOG_FLUSH_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    listenBacklog: e.LISTEN_BACKLOG,
    limits: limitSettings(e),
    spaces: { tokenMaxSeconds: e.SPACE_TOKEN_MAX_SECONDS, tokensMax: e.SPACE_TOKENS_MAX, membersMax: e.SPACE_MEMBERS_MAX, perKeyMax: e.SPACES_PER_KEY_MAX },
  };
  return deepFreeze(config);
}
