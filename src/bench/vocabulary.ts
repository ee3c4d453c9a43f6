/** Deterministic synthetic text for the benchmarks. */
/** A deterministic technical sentence of 12–30 words from the vocabulary (seeded LCG). */
export const VOCABULARY = (
  'connection pool exhausted timeout retry backoff queue worker cache eviction memory leak heap ' +
  'socket reset refused handshake certificate token refresh expired scope grant header cookie ' +
  'session lock deadlock transaction isolation index vacuum migration schema column constraint ' +
  'replica primary failover latency throughput batch stream buffer chunk encoding unicode parser ' +
  'compiler bundler module import export resolution path symlink permission denied container ' +
  'image layer registry pull push tag deploy rollout probe readiness liveness restart crash ' +
  'signal shutdown graceful drain proxy load balancer upstream downstream gateway route rewrite ' +
  'query planner statistics vector embedding model tokenizer prompt context window rate limit ' +
  'quota burst throttle webhook event subscription topic partition offset consumer producer lag ' +
  'checksum digest signature key rotation secret vault audit log trace span metric alert dashboard ' +
  'config environment variable flag default override fallback version upgrade downgrade patch ' +
  'regression benchmark profile flamegraph allocation garbage collector thread async await promise'
).split(' ');

export function sentence(seed: number): string {
  let x = (seed * 2654435761 + 1013904223) >>> 0;
  // One of k, from the generator's high bits: its low bits repeat with short periods (the lowest
  // five every 32 draws), and picked by them 4,000 sentences held 1,296 distinct adjacent word
  // pairs of the 20,736 possible, so that a two-word query matched an unrealistically lumpy corpus.
  const pick = (k: number) => Math.floor(((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32) * k);
  const n = 12 + pick(19);
  return Array.from({ length: n }, () => VOCABULARY[pick(VOCABULARY.length)]).join(' ');
}

