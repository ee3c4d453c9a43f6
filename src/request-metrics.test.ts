/** RequestMetrics: the same exposition (text and JSON) as prom-client's own counter and histogram fed alike. */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from './request-metrics.js';

const counter = { name: 'test_requests_total', help: 'Requests' };
const histogram = { name: 'test_duration_seconds', help: 'Durations', buckets: [0.001, 0.01, 0.1] };
const observations: [string, string, number, number][] = [
  ['GET', '/p/:id', 200, 0.0004],
  ['GET', '/p/:id', 200, 0.001], // on a bound: counted in that bucket
  ['GET', '/p/:id', 200, 0.05],
  ['GET', '/p/:id', 404, 0.002],
  ['POST', '/findings', 201, 3], // past every bound: +Inf only
  ['GET', 'a "quoted\\ route', 200, 0.0001],
];

function both() {
  const ours = new Registry();
  const metrics = new RequestMetrics(ours, { counter, histogram });
  const theirs = new Registry();
  const c = new Counter({ ...counter, labelNames: ['method', 'route', 'status'], registers: [theirs] });
  const h = new Histogram({ ...histogram, labelNames: ['method', 'route', 'status'], registers: [theirs] });
  for (const [method, route, status, seconds] of observations) {
    metrics.record(method, route, status, seconds);
    c.inc({ method, route, status: String(status) });
    h.observe({ method, route, status: String(status) }, seconds);
  }
  return { ours, theirs };
}

describe('RequestMetrics', () => {
  it("writes the text exposition prom-client's counter and histogram write", async () => {
    const { ours, theirs } = both();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('test_duration_seconds_bucket{le="0.001",method="GET",route="/p/:id",status="200"} 2');
    expect(text).toContain('test_duration_seconds_bucket{le="+Inf",method="POST",route="/findings",status="201"} 1');
    expect(text).toContain('test_requests_total{method="GET",route="/p/:id",status="200"} 3');
  });

  it('answers the same JSON, but for exemplars (none are kept)', async () => {
    const { ours, theirs } = both();
    const withoutExemplars = (await theirs.getMetricsAsJSON()).map((m) => ({ ...m, values: m.values.map((v) => { const { exemplar: _, ...rest } = v as typeof v & { exemplar?: unknown }; return rest; }) }));
    expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars);
  });

  it('writes nothing but its HELP and TYPE lines before a request', async () => {
    const registry = new Registry();
    new RequestMetrics(registry, { counter, histogram });
    expect(await registry.metrics()).toBe('# HELP test_requests_total Requests\n# TYPE test_requests_total counter\n\n# HELP test_duration_seconds Durations\n# TYPE test_duration_seconds histogram\n');
  });
});
