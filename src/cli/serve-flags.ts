/**
 * Node's flags for `serve`. Node takes them only on its command line (V8 sizes its heap as it
 * starts), so every launcher passes them: package.json's `start`, the Dockerfile's CMD and
 * compose.yaml's instances (test/e2e/production.test.ts and instances.test.ts check them), and
 * the benches' boards.
 *
 * No allocation-site pretenuring. V8 allocates straight into the old generation from any
 * allocation site whose objects mostly survived their first young collection. One burst of
 * requests that lived longer than usual (the bench's seeding, 300 publishes from 8
 * connections, was enough) marked the sites where Node's HTTP server makes each request's
 * objects, and from then on those were born old and died there: each young collection kept
 * alive what they pointed to, until the next full collection. Measured on SQLite, a cached GET
 * after those publishes: 1.5 MB of every 13 MB allocated survived each young collection and
 * was moved to the old generation, against 30 KB with the flag (--trace-gc-nvp). Under `npm run
 * bench`'s loads, alternating with the same board without the flag: cached GET /p/{id} 10–23%
 * faster, lexical searches with every query new 6–11%, publishes 3–7%.
 *
 * Semi-spaces of 32 MiB, against Node 20's 16. A young collection copies what is still live
 * there (the requests in flight and what they hold), so its cost hardly depends on the space's
 * size, and a larger space is collected less often. Without pretenuring, under 32 connections
 * searching on PostgreSQL with every query new (--trace-gc): 9 young collections a second of
 * 2.7 ms each, against 17 of 2.2 ms; alternating with the same board with 16 MiB, searches 7%
 * faster and publishes 2% (with pretenuring, publishes had gained 9–12%). 64 MiB did no
 * better. The cost is memory: up to 32 MiB more under load.
 */
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=32', '--no-allocation-site-pretenuring'] as const;
