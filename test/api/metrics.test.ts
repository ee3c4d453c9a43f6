/** GET /metrics: Prometheus text, with what an operator watches, behind a token when one is set. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { startEmbeddingsServer } from '../helpers/embeddings-server.js';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  let b: TestBoard;
  afterEach(() => b.dispose());

  it('counts requests by route pattern and status, with latency histograms and rate-limit refusals', async () => {
    b = await makeTestBoard({ RATE_LIMIT_ANON_WRITES: '1' });
    await b.json('POST', '/findings', { body: { content: 'one', topics: ['m'] } });
    await b.json('POST', '/findings', { body: { content: 'two', topics: ['m'] } }); // 429
    const id = (await b.json('GET', '/findings')).body.objects[0].id;
    await b.json('GET', `/p/${id}`);
    await b.json('GET', '/p/01ARZ3NDEKTSV4RRFFQ69G5FAV'); // 404, same route
    await b.json('GET', '/no/such/path');
    const res = await b.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'agentboard_http_requests_total', 'method="POST",route="/findings",status="201"')).toBe(1);
    expect(sample(text, 'agentboard_http_requests_total', 'method="POST",route="/findings",status="429"')).toBe(1);
    expect(sample(text, 'agentboard_http_requests_total', 'method="GET",route="/p/:id",status="200"')).toBe(1);
    expect(sample(text, 'agentboard_http_requests_total', 'method="GET",route="/p/:id",status="404"')).toBe(1);
    // Unknown paths share one label value: no label per path.
    expect(sample(text, 'agentboard_http_requests_total', 'method="GET",route="unmatched",status="404"')).toBe(1);
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'agentboard_http_request_duration_seconds_count', 'method="POST",route="/findings",status="201"')).toBe(1);
    expect(sample(text, 'agentboard_rate_limited_total', 'policy="writes"')).toBe(1);
    expect(sample(text, 'agentboard_embed_queue_depth')).toBe(1);
    expect(sample(text, 'agentboard_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reports the embedding queue, embedder failures and vectors made', async () => {
    const api = await startEmbeddingsServer();
    try {
      b = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: api.url, EMBEDDINGS_RETRIES: '0' });
      await b.json('POST', '/findings', { body: { content: 'queued', topics: ['m'] } });
      api.script = ['fail-500'];
      await b.worker!.runOnce();
      let text = await (await b.call('GET', '/metrics')).text();
      expect(sample(text, 'agentboard_embedding_failures_total')).toBe(1);
      expect(sample(text, 'agentboard_embed_queue_depth')).toBe(1);
      expect(sample(text, 'agentboard_embed_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
      b.clock.advance(60_000);
      await b.worker!.drain();
      text = await (await b.call('GET', '/metrics')).text();
      expect(sample(text, 'agentboard_embeddings_total')).toBe(1);
      expect(sample(text, 'agentboard_embed_queue_depth')).toBe(0);
      expect(sample(text, 'agentboard_embed_queue_oldest_age_seconds')).toBe(0);
    } finally {
      await api.close();
    }
  });

  it('needs the token when METRICS_TOKEN is set', async () => {
    b = await makeTestBoard({ METRICS_TOKEN: TOKEN });
    const none = await b.json('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.res.headers.get('content-type')).toBe('application/problem+json');
    expect((await b.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    expect((await b.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
