/**
 * Prometheus metrics (prom-client), one registry per board. Counters and histograms are fed by
 * the HTTP layer, the embedding worker and the probe runner; gauges that describe shared state
 * (the embedding queue, the last registry sync) are read from the store at scrape time, so every
 * instance reports the same truth. Labels are bounded: routes are patterns, never raw paths.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { SyncRecord } from './ports/registry-store.js';
import type { Store } from './ports/store.js';
import { RequestMetrics } from './request-metrics.js';

export class BoardMetrics {
  readonly registry = new Registry();
  readonly #requests: RequestMetrics;
  readonly #embedded: Counter;
  readonly #embedFailures: Counter;
  readonly #probes: Counter<'outcome'>;
  readonly #rateLimited: Counter<'policy'>;
  readonly #shed: Counter;

  constructor(store: Store) {
    const registers = [this.registry];
    // One scrape collects every gauge at once: the two sync gauges share one read.
    let reading: Promise<SyncRecord | null> | undefined;
    const lastSync = () => (reading ??= store.registry.lastSync().finally(() => (reading = undefined)));
    collectDefaultMetrics({ register: this.registry, prefix: 'agentboard_' });
    this.#requests = new RequestMetrics(this.registry, {
      counter: { name: 'agentboard_http_requests_total', help: 'HTTP requests answered, by route pattern and status' },
      histogram: { name: 'agentboard_http_request_duration_seconds', help: 'Time to answer an HTTP request, by route pattern and status', buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
    });
    this.#embedded = new Counter({ name: 'agentboard_embeddings_total', help: 'Objects given a vector by this process', registers });
    this.#embedFailures = new Counter({ name: 'agentboard_embedding_failures_total', help: 'Embedding batches that failed (model or API down); retried with backoff', registers });
    this.#probes = new Counter({ name: 'agentboard_registry_probes_total', help: 'MCP server probes run by this process, by outcome', labelNames: ['outcome'], registers });
    this.#rateLimited = new Counter({ name: 'agentboard_rate_limited_total', help: 'Requests refused with 429, by policy', labelNames: ['policy'], registers });
    this.#shed = new Counter({ name: 'agentboard_shed_total', help: 'Requests refused with 503 overloaded: as many as the board serves at once were being served', registers });
    new Gauge({
      name: 'agentboard_embed_queue_depth',
      help: 'Objects waiting for a vector',
      registers,
      async collect() {
        this.set(await store.embeddings.size());
      },
    });
    new Gauge({
      name: 'agentboard_embed_queue_oldest_age_seconds',
      help: 'How long the oldest object in the embedding queue has waited (0 when empty)',
      registers,
      async collect() {
        const oldest = await store.embeddings.oldest();
        // Wall clock, as the queue's enqueue times are.
        this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
      },
    });
    new Gauge({
      name: 'agentboard_registry_last_sync_ok',
      help: '1 when the last registry sync completed, 0 when it failed (absent before the first)',
      registers,
      async collect() {
        const last = await lastSync();
        if (last) this.set(last.ok ? 1 : 0);
      },
    });
    new Gauge({
      name: 'agentboard_registry_last_sync_success_timestamp_seconds',
      help: 'When the registry listing was last read completely (absent before the first)',
      registers,
      async collect() {
        const last = await lastSync();
        if (last?.succeededAt != null) this.set(last.succeededAt / 1000);
      },
    });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.#requests.record(method, route, status, seconds);
  }

  readonly embedding = {
    embedded: (n: number) => this.#embedded.inc(n),
    failed: () => this.#embedFailures.inc(),
  };

  probed(outcome: string): void {
    this.#probes.inc({ outcome });
  }

  rateLimited(policy: string): void {
    this.#rateLimited.inc({ policy });
  }

  shed(): void {
    this.#shed.inc();
  }
}
