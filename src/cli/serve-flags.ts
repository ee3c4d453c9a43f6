/**
 * Node's flags for `serve`. Node takes them only on its command line (V8 reads its flags as it
 * starts), so every launcher passes them: package.json's `start`, the Dockerfile's CMD and
 * compose.yaml's instances (test/e2e/production.test.ts and instances.test.ts check them), and
 * the benches' boards.
 *
 * No allocation-site pretenuring. V8 allocates straight into the old generation from any
 * allocation site whose objects mostly survived their first young collection. One burst of
 * requests that lived longer than usual (the bench's seeding, 300 publishes from 8
 * connections, was enough) marked the sites where Node's HTTP server makes each request's
 * objects, and from then on those were born old and died there: each young collection kept
 * alive what they pointed to, until the next full collection. Larger semi-spaces were tried and
 * not kept: they cost more memory than the memory budget spares (docs/performance.md).
 */
export const SERVE_NODE_FLAGS = ['--no-allocation-site-pretenuring'] as const;
