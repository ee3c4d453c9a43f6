/**
 * The two per-request metrics, agentboard_http_requests_total and
 * agentboard_http_request_duration_seconds, tallied in plain numbers and handed to a prom-client
 * registry as custom metrics at scrape time. prom-client's own labelled counter and histogram
 * validate and hash their labels and turn the bucket bound into a string on every observation:
 * a cached GET took about 20,000 of its 330,000 instructions fewer without that call (callgrind).
 * The exposition is the same as theirs (request-metrics.test.ts).
 */
import type { Registry } from 'prom-client';

type Labels = { method: string; route: string; status: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last is +Inf. */
  buckets: number[];
}

interface Value {
  metricName?: string;
  labels: object;
  sharedLabels?: Labels;
  value: number;
}

interface Exposition {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Value[];
}

/** A custom metric as prom-client's Registry reads one: its name, and get() (getForPromString() first, for text). */
type CustomMetric = Omit<Exposition, 'values'> & { get(): Exposition; getForPromString?(): Exposition };

export class RequestMetrics {
  readonly #series = new Map<string, Series>();

  constructor(
    registry: Registry,
    private readonly o: { counter: { name: string; help: string }; histogram: { name: string; help: string; buckets: readonly number[] } },
  ) {
    // The typings want a prom-client metric class; the registry reads only what CustomMetric has.
    for (const metric of [this.#counter(), this.#histogram()]) registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let s = this.#series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(this.o.histogram.buckets.length + 1).fill(0) };
      this.#series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    const bounds = this.o.histogram.buckets;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    s.buckets[i]!++;
  }

  #counter(): CustomMetric {
    const head = { ...this.o.counter, type: 'counter', aggregator: 'sum' } as const;
    return { ...head, get: () => ({ ...head, values: [...this.#series.values()].map((s) => ({ labels: s.labels, value: s.count })) }) };
  }

  #histogram(): CustomMetric {
    const { name, buckets } = this.o.histogram;
    const head = { name, help: this.o.histogram.help, type: 'histogram', aggregator: 'sum' } as const;
    // As prom-client's histogram: `le` (or nothing) in labels, the series' labels shared, so the
    // text reads `_bucket{le="0.001",method=…}`; get() (the JSON form) merges them.
    const values = () => {
      const out: Value[] = [];
      const push = (suffix: string, labels: object, value: number, s: Series) => out.push({ metricName: `${name}${suffix}`, labels, sharedLabels: s.labels, value });
      for (const s of this.#series.values()) {
        let cumulative = 0;
        buckets.forEach((le, i) => push('_bucket', { le }, (cumulative += s.buckets[i]!), s));
        push('_bucket', { le: '+Inf' }, s.count, s);
        push('_sum', {}, s.sum, s);
        push('_count', {}, s.count, s);
      }
      return out;
    };
    return {
      ...head,
      getForPromString: () => ({ ...head, values: values() }),
      get: () => ({ ...head, values: values().map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) }),
    };
  }
}
