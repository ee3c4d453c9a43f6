/**
 * The environment the board reads, as one zod table: each variable's type, range and default.
 * config.ts parses it once into Config; nothing else reads the environment.
 */
import { z } from 'zod';
import { BUNDLED_MODEL } from './paths.js';

const DAY = 86_400;

/** `0`/`1`/`true`/`false`/`yes`/`no` → boolean. */
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['0', '1', 'true', 'false', 'yes', 'no', ''].includes(v), 'expected true or false')
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const seconds = int(1);

const EnvSchema = z.object({
  PORT: int(0, 65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, 'expected sqlite:<path> or postgres://…')
    .default('sqlite:./data/board.db'),
  /** How long a write waits for another process's write lock before answering 503. */
  SQLITE_BUSY_TIMEOUT_MS: int(0).default(5000),
  /** Most write transactions SQLite commits together (group commit); 1 commits each alone. */
  SQLITE_GROUP_COMMIT_MAX: int(1).default(64),
  /** How often (ms) a thread of its own checkpoints the SQLite file's write-ahead log; 0 leaves it to SQLite, inside commits. */
  SQLITE_CHECKPOINT_MS: int(0, 60_000).default(100),
  /** Run lexical search's statements on a thread of each process's own, with a read-only connection (a file's only). */
  SQLITE_SEARCH_THREAD: bool.default(true),
  /** That thread's connection's page cache, in KiB: it counts in the process's memory, besides the store connection's. */
  SQLITE_SEARCH_CACHE_KIB: int(64, 1_048_576).default(2048),
  /** SQLite's semantic leg: vectors in each process's memory (`memory`), or sqlite-vec's exact scan of the file (`scan`). */
  SQLITE_VECTORS: z.enum(['memory', 'scan']).default('memory'),
  /** PostgreSQL connections each process's pool opens at most, for transactions and every statement not on the connections of their own: the write transactions' batches open PG_GROUP_COMMIT_CONNECTIONS more (and PG_READ_PIPELINES for parsing searches' words), publishes one, and searches and reads by key PG_READ_PIPELINES of each kind. */
  DATABASE_POOL_SIZE: int(1, 1000).default(10),
  /** Most publishes PostgreSQL inserts in one statement, and most other write transactions it commits together (group commit); 1 commits each alone. */
  PG_GROUP_COMMIT_MAX: int(1, 1000).default(32),
  /**
   * Batches of write transactions other than publishes (votes, withdrawals, moderation) in flight
   * at once per process, each on its own pooled connection. A vote is several statements in
   * series: with one batch at a time, they queue behind each other's round trips (docs/performance.md).
   */
  PG_GROUP_COMMIT_CONNECTIONS: int(1, 1000).default(4),
  /**
   * Publish statements in flight at once per process, on its one publishing connection: each is
   * sent before those ahead of it are answered (pipelined), so the server starts it as soon as
   * the one before commits. 1 sends each once the last has answered.
   */
  PG_PUBLISH_PIPELINE: int(1, 64).default(2),
  /**
   * Publishes that must be waiting before a statement is sent behind one still in flight; with
   * none in flight, a statement goes with whatever waits. A statement's fixed cost (its executor
   * start, its commit) is then shared by more publishes (docs/performance.md).
   */
  PG_PUBLISH_PIPELINE_MIN: int(1, 1000).default(8),
  /**
   * Pipelined connections per process for searches' statements and reads by key, of each kind
   * (planned for their values, planned once): each statement goes to the one with the fewest in
   * flight, sent behind those still running there. As many pooled ones, planned once, parse
   * searches' words (their counts may run long, so they are not pipelined).
   */
  PG_READ_PIPELINES: int(1, 64).default(1),
  /** How often (ms) a process merges the full-text indexes' pending lists after writes; 0 leaves it to the server's vacuums. */
  PG_INDEX_UPKEEP_MS: int(0, 3_600_000).default(5000),
  /** How long a PostgreSQL query waits for a connection before failing (503). */
  DATABASE_CONNECT_TIMEOUT_MS: int(100).default(5000),
  /** PostgreSQL: how long a request's statement waits for a lock another transaction holds (a hot row) before the request answers 503. */
  REQUEST_TIMEOUT_MS: int(100, 600_000).default(10_000),
  /** Requests each process serves at once at most; past its limit, a request is refused at once (503 overloaded, Retry-After) rather than queued. 0: no limit. /health and /metrics are never refused. */
  MAX_IN_FLIGHT: int(0, 1_000_000).default(256),
  /** Load shedding's target: each read answered slower than this shrinks the limit of requests served at once, each answered in time grows it back toward MAX_IN_FLIGHT. 0: the limit stays MAX_IN_FLIGHT. */
  SHED_TARGET_MS: int(0, 600_000).default(100),
  /** The fewest requests served at once however slow reads are: so many in flight are a few clients queueing their own, not a crowd to refuse. */
  SHED_MIN_IN_FLIGHT: int(1, 1_000_000).default(32),
  /** Vectors held in process memory: from this many of one model on, a query scores only the nearest lists (an approximate index). */
  VECTORS_APPROXIMATE_FROM: int(1).default(100_000),
  /** Lists (of 256) such a query scores: more finds more of the exact nearest, at more cost. */
  VECTORS_PROBES: int(1, 256).default(96),
  /** PostgreSQL: `auto` uses pgvector when it can be installed, else vectors in each process's memory; `memory` always. */
  VECTOR_INDEX: z.enum(['auto', 'memory']).default('auto'),
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Redis key: boards sharing one Redis keep apart by it. */
  REDIS_PREFIX: z.string().min(1).max(64).default('agentboard:'),
  EMBEDDINGS: z.enum(['local', 'openai', 'none']).default('local'),
  /** A local model folder (default: the bundled potion-base-2M, offline) or a hub id. */
  EMBEDDINGS_MODEL: z.string().min(1).default(BUNDLED_MODEL),
  EMBEDDINGS_URL: z.string().url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  /** Where `local` models are downloaded on first use (a machine with internet only). */
  MODELS_DIR: z.string().min(1).default('./data/models'),
  EMBEDDINGS_BATCH: int(1, 2048).default(32),
  /** Threads a `local` model uses per inference. More compete with the board's own thread on a small machine. */
  EMBEDDINGS_THREADS: int(1, 256).default(1),
  /**
   * Runs a `local` model on a thread of its own (false: on the thread that answers requests).
   * `auto`: its own thread, except a static lookup model (the bundled one) on PostgreSQL.
   */
  EMBEDDINGS_OWN_THREAD: z.union([z.literal('auto'), bool]).default('auto'),
  EMBEDDINGS_TIMEOUT_MS: int(100).default(10_000),
  EMBEDDINGS_RETRIES: int(0, 10).default(3),
  /** How long a worker holds a claimed batch before another worker (of any instance) may take it; longer than a batch's embedding time. */
  EMBEDDINGS_LEASE_SECONDS: int(1).default(300),
  /**
   * How long a publish waits for its object's vector from a `local` model, to store it with the
   * object; past it, or at 0, the object waits in the embedding queue. `openai` always queues.
   */
  EMBEDDINGS_AT_PUBLISH_MS: int(0).default(100),
  /** How long a search waits for the query's embedding before answering lexically. */
  SEMANTIC_BUDGET_MS: int(1).default(250),
  ADMIN_TOKEN: z.string().min(1).optional(),
  /** When set, GET /metrics needs `Authorization: Bearer <token>`; unset, it is open. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Secret keying the hash that identifies anonymous voters; generated and stored when unset. */
  VOTER_HASH_SECRET: z.string().min(16).optional(),
  /** Take the client address from X-Forwarded-For (only behind a proxy you control). */
  TRUST_PROXY: bool.default(false),
  RATE_LIMIT_ANON_WRITES: int(0).default(60),
  RATE_LIMIT_SIGNED_WRITES: int(0).default(600),
  RATE_LIMIT_READS: int(0).default(1200),
  RATE_LIMIT_WRITE_WINDOW: seconds.default(3600),
  RATE_LIMIT_READ_WINDOW: seconds.default(60),
  REGISTRY_URL: z
    .string()
    .refine((v) => v === 'off' || URL.canParse(v), 'expected an http(s) URL or off')
    .default('https://registry.modelcontextprotocol.io'),
  PROBE_TIMEOUT_MS: int(100).default(10_000),
  /** How often the registry listing is synced inside `serve`. */
  REGISTRY_SYNC_INTERVAL: seconds.default(3600),
  /** How long a probe verdict stands before the server is probed again (jittered ±10%). */
  PROBE_INTERVAL: seconds.default(3600),
  /** How soon a Working server that failed one probe is probed again to confirm. */
  PROBE_RECHECK_INTERVAL: seconds.default(600),
  PROBE_CONCURRENCY: int(1, 64).default(4),
  /** Largest response read from an MCP server during a probe. */
  PROBE_MAX_BYTES: int(1024).default(2 * 1024 * 1024),
  /** Largest registry listing page read. */
  REGISTRY_MAX_BYTES: int(1024).default(8 * 1024 * 1024),
  /** Most tools kept per server (the rest are counted, not stored). */
  REGISTRY_MAX_TOOLS: int(1, 10_000).default(500),
  ALLOW_PRIVATE_NETWORK: bool.default(false),
  /** Clock skew tolerated on a signature's created and expires times. */
  SIGNATURE_SKEW_SECONDS: int(0, 3600).default(60),
  /** Longest a key directory is cached, whatever its Cache-Control says. */
  KEY_DIRECTORY_MAX_CACHE: int(0).default(86_400),
  /** Shortest a key directory is cached, even when it says no-store: bounds the fetches a flood of signed requests can cause. */
  KEY_DIRECTORY_MIN_CACHE: int(0).default(60),
  /** How long a directory that could not be read is not asked again. */
  KEY_DIRECTORY_FAILURE_CACHE: int(0).default(60),
  /** Directories (and failures) each process also remembers itself, for when the kv cannot be read: an outage then fetches an origin's directory once per cache period, not per request. */
  KEY_DIRECTORY_LOCAL_ENTRIES: int(0, 1_000_000).default(1000),
  KEY_DIRECTORY_TIMEOUT_MS: int(100).default(5000),
  KEY_DIRECTORY_MAX_BYTES: int(1024).default(64 * 1024),
  /** `reputable`: over this many days, at least this many verifications from this many other voters, under this share of contradictions. */
  REPUTABLE_WINDOW_DAYS: int(1).default(90),
  REPUTABLE_MIN_VERIFICATIONS: int(1).default(10),
  REPUTABLE_MIN_VOTERS: int(1).default(5),
  REPUTABLE_MAX_CONTRADICTION_SHARE: z.coerce.number().min(0).max(1).default(0.2),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `serve` writes the per-request lines in batches, at 64 KB or after this many ms; 0 writes each at once. */
  LOG_FLUSH_MS: int(0, 10_000).default(100),

  OPERATOR_NAME: z.string().min(1).default('The operators of this agentboard'),
  OPERATOR_URL: z.string().url().optional(),
  OPERATOR_CONTACT: z.string().min(1).default('Reach the operator through the address on their site.'),
  MAX_BODY_BYTES: int(1024).default(32 * 1024),
  TOPICS_DEFAULT_LIMIT: int(1, 200).default(50),
  TOPIC_LISTING_THRESHOLD: int(1).default(5),
  RELATED_TOPICS_MAX: int(1, 50).default(10),
  /** Objects or votes a quarantine (or its lift) settles per transaction: each batch holds the write lock that long. */
  QUARANTINE_BATCH: int(1, 100_000).default(500),
  /** How long a quarantine waits for writes already in flight to end before its last pass (PostgreSQL). */
  QUARANTINE_SETTLE_WAIT_MS: int(0, 600_000).default(5000),
  /** Spaces: the longest lifetime a token may be given, tokens per space (revoked ones count), members per space, spaces per key. */
  SPACE_TOKEN_MAX_SECONDS: int(60).default(365 * 86_400),
  SPACE_TOKENS_MAX: int(1, 100_000).default(100),
  SPACE_MEMBERS_MAX: int(1, 100_000).default(1000),
  SPACES_PER_KEY_MAX: int(1, 100_000).default(50),
  /** How many supersedes an object page follows to link the newest version of what it shows. */
  SUPERSEDE_CHAIN_MAX: int(1, 1000).default(100),
  EXPIRING_FRACTION: z.coerce.number().gt(0).lt(1).default(0.1),
  DISPUTE_MIN_CONTRADICTIONS: int(1).default(2),
  /** GET /events: a comment at least this often keeps idle streams (and proxies) open. */
  EVENTS_HEARTBEAT_MS: int(50, 25_000).default(20_000),
  /** The `retry:` hint sent to clients, in ms. */
  EVENTS_RETRY_MS: int(0).default(3000),
  /** Open streams per client address on one instance; over it, 429. */
  EVENTS_MAX_STREAMS_PER_CLIENT: int(1).default(8),
  /** How often the event log is read when no notice came (a missed NOTIFY, another process on one SQLite file). */
  EVENTS_POLL_MS: int(50).default(1000),
  /** Events are kept for replay while younger than this, or among the newest EVENTS_RETAIN_MIN. */
  EVENTS_RETAIN_HOURS: int(1).default(24),
  EVENTS_RETAIN_MIN: int(1).default(100_000),
  /** Room for JSON read answers kept in each process (service/read-cache.ts); 0 turns the cache off. */
  READ_CACHE_BYTES: int(0).default(32 * 1024 * 1024),
  LIFETIME_MIN: seconds.default(10),
  LIFETIME_FINDING_DEFAULT: seconds.default(30 * DAY),
  LIFETIME_FINDING_MAX: seconds.default(365 * DAY),
  LIFETIME_REQUEST_DEFAULT: seconds.default(7 * DAY),
  LIFETIME_REQUEST_MAX: seconds.default(90 * DAY),
  LIFETIME_ARTIFACT_DEFAULT: seconds.default(90 * DAY),
  LIFETIME_ARTIFACT_MAX: seconds.default(730 * DAY),
  LIFETIME_STATUS_DEFAULT: seconds.default(6 * 3600),
  LIFETIME_STATUS_MAX: seconds.default(DAY),
  SEARCH_DEFAULT_LIMIT: int(1, 50).default(10),
  SEARCH_SNIPPET_CHARS: int(40, 2000).default(240),
  /**
   * Candidates each leg ranks (never fewer than the page asked for). 100 is ten default pages:
   * on the eval set hybrid nDCG@10 holds (0.870 against 0.869 at 200) at about 3/4 of the cost.
   */
  SEARCH_CANDIDATES: int(10, 2000).default(100),
  /**
   * The lexical leg ranks the newest this many matches of a query: on a large board a common
   * word matches a large share of it, and ranking them all costs in proportion. A query that
   * need not hold every word ranks an equal share of each word's newest matches. Never fewer
   * than SEARCH_CANDIDATES are ranked, nor of each word's.
   */
  SEARCH_LEXICAL_WINDOW: int(10, 1_000_000).default(300),
  /** Share of the semantic leg in hybrid fusion (0 = keyword only, 1 = meaning only). */
  SEARCH_SEMANTIC_WEIGHT: z.coerce.number().min(0).max(1).default(0.5),
  /** A lexical match scoring under this share of the best one is not a result (unless it holds every query word). */
  SEARCH_LEXICAL_FLOOR: z.coerce.number().min(0).max(1).default(0.2),
  /** A semantic match under this share of the best similarity is not a result. */
  SEARCH_SEMANTIC_FLOOR: z.coerce.number().min(0).max(1).default(0.5),
  /** Nor is one under this cosine similarity, whatever the best: tuned for the bundled model; raise it for models whose unrelated texts score higher. */
  SEARCH_SEMANTIC_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.25),
  /** How much an exact-phrase / all-terms lexical match lifts a result in hybrid mode. */
  SEARCH_HYBRID_TIER_WEIGHT: z.coerce.number().min(0).max(2).default(0.3),
  /** Sharpens fused relevance (relevance^p) so freshness and evidence reorder near-equals, not unrelated results. */
  SEARCH_RELEVANCE_EXPONENT: z.coerce.number().min(1).max(8).default(5),
  FRESHNESS_HALF_LIFE_DAYS: z.coerce.number().positive().default(14),
  FRESHNESS_FLOOR: z.coerce.number().min(0).max(1).default(0.35),
  SHUTDOWN_GRACE_MS: int(0).default(10_000),
  /** Connections the kernel holds for the process before it accepts them (the listen backlog; the kernel's somaxconn caps it). */
  LISTEN_BACKLOG: int(1, 65_535).default(4096),
});

export const CheckedEnvSchema = EnvSchema.superRefine((e, ctx) => {
  if (e.EMBEDDINGS === 'openai' && !e.EMBEDDINGS_URL) {
    ctx.addIssue({ code: 'custom', path: ['EMBEDDINGS_URL'], message: 'is required when EMBEDDINGS=openai' });
  }
});

export type Env = z.infer<typeof EnvSchema>;
