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
 * alive what they pointed to, until the next full collection. Measured on SQLite, a cached GET
 * after those publishes: 1.5 MB of every 13 MB allocated survived each young collection and
 * was moved to the old generation, against 30 KB with the flag (--trace-gc-nvp). Under `npm run
 * bench`'s loads, alternating with the same board without the flag (both with the 32 MiB
 * semi-spaces below): cached GET /p/{id} 10–23% faster, lexical searches with every query new
 * 6–11%, publishes 3–7%.
 *
 * Not kept: semi-spaces of 32 MiB (--max-semi-space-size=32, against Node 20's 16). Young
 * collections then came half as often, and searches with every query new ran 7% faster and
 * publishes 2%, but an instance searching 100,000 objects (`npm run bench:search`) held 25 MiB
 * more (228 against 201 MiB), which the 1,000,000-object memory budget cannot spare.
 */
export const SERVE_NODE_FLAGS = ['--no-allocation-site-pretenuring'] as const;
