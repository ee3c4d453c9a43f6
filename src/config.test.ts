import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8787);
    expect(c.host).toBe('127.0.0.1');
    expect(c.database).toEqual({ kind: 'sqlite', path: './data/board.db', busyTimeoutMs: 5000, groupCommitMax: 64, checkpointMs: 100, searchThread: true, searchCacheKib: 2048, vectors: 'memory', memoryIndex: { approximateFrom: 100_000, probes: 96 } });
    expect(c.rateLimits).toMatchObject({ anonWrites: 60, signedWrites: 600, reads: 1200 });
    expect(c.maxBodyBytes).toBe(32768);
    expect(c.limits.lifetimes.status).toEqual({ defaultSeconds: 21600, maxSeconds: 86400 });
    expect(c.limits.topicsDefaultLimit).toBe(50);
    expect(c.allowPrivateNetwork).toBe(false);
    expect(c.embeddings.threads).toBe(1);
    expect(c.embeddings.ownThread).toBe('auto');
    expect(c.embeddings.atPublishMs).toBe(100);
    expect(Object.isFrozen(c.limits.lifetimes)).toBe(true);
  });
  it('reads settings and treats empty strings as unset', () => {
    const c = loadConfig({ PORT: '9000', BASE_URL: 'https://board.example/', RATE_LIMIT_READS: '0', ADMIN_TOKEN: '', REGISTRY_URL: 'off' });
    expect(c.port).toBe(9000);
    expect(c.baseUrl).toBe('https://board.example');
    expect(c.rateLimits.reads).toBe(0);
    expect(c.adminToken).toBeUndefined();
    expect(c.registry.url).toBeUndefined();
    const d = loadConfig({ EMBEDDINGS_THREADS: '4', EMBEDDINGS_OWN_THREAD: 'false', EMBEDDINGS_AT_PUBLISH_MS: '0', SQLITE_VECTORS: 'scan', SQLITE_SEARCH_THREAD: 'false', SQLITE_SEARCH_CACHE_KIB: '512' });
    expect(d.embeddings.threads).toBe(4);
    expect(d.embeddings.ownThread).toBe(false);
    expect(d.embeddings.atPublishMs).toBe(0);
    expect(d.database).toMatchObject({ kind: 'sqlite', vectors: 'scan', searchThread: false, searchCacheKib: 512 });
    expect(() => loadConfig({ SQLITE_VECTORS: 'hnsw' })).toThrow(ConfigError);
    expect(loadConfig({ EMBEDDINGS_OWN_THREAD: 'yes' }).embeddings.ownThread).toBe(true);
    const pgUrl = 'postgres://u@127.0.0.1/db';
    expect(loadConfig({ DATABASE_URL: pgUrl }).database).toMatchObject({ groupCommit: { maxBatch: 32, inFlight: 4 }, publishPipeline: 2, publishPipelineMin: 8, readPipelines: 1 });
    expect(loadConfig({ DATABASE_URL: pgUrl, PG_GROUP_COMMIT_CONNECTIONS: '3', PG_PUBLISH_PIPELINE: '1', PG_PUBLISH_PIPELINE_MIN: '1', PG_READ_PIPELINES: '4' }).database).toMatchObject({ groupCommit: { inFlight: 3 }, publishPipeline: 1, publishPipelineMin: 1, readPipelines: 4 });
    expect(() => loadConfig({ DATABASE_URL: pgUrl, PG_PUBLISH_PIPELINE: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: pgUrl, PG_PUBLISH_PIPELINE_MIN: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: pgUrl, PG_READ_PIPELINES: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_OWN_THREAD: 'sometimes' })).toThrow(ConfigError);
  });
  it('lists every bad setting at once', () => {
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', ALLOW_PRIVATE_NETWORK: 'maybe' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.split(':')[0])).toEqual(['PORT', 'DATABASE_URL', 'ALLOW_PRIVATE_NETWORK']);
    }
  });
});
