import { randomUUID } from 'node:crypto';
import { MemoryKv } from '../../src/kv/memory-kv.js';
import { RedisKv } from '../../src/kv/redis-kv.js';
import { runKvContract } from './kv.case.js';

runKvContract({ name: 'memory', makeKv: async () => new MemoryKv() });

// The real Redis on loopback (every machine of this project runs one); a fresh prefix per test.
runKvContract({
  name: 'redis',
  async makeKv() {
    const kv = new RedisKv('redis://127.0.0.1:6379', `agentboard-test:${randomUUID()}:`);
    await kv.ready();
    return kv;
  },
});
