/**
 * Node's flags for `serve`. Node takes them only on its command line (V8 sizes its heap as it
 * starts), so every launcher passes them: package.json's `start`, the Dockerfile's CMD and
 * compose.yaml's instances (test/e2e/production.test.ts and instances.test.ts check them), and
 * the benches' boards.
 *
 * Semi-spaces of 32 MiB, against Node 20's 16. A collection of the young generation copies
 * what is still live there (the requests in flight and what they hold), so its cost hardly
 * depends on the space's size, and a larger space is collected less often. Under 16 publishing
 * connections on PostgreSQL (--trace-gc): 10 collections a second of 4.7 ms each, against 6 of
 * 6.4 ms, the request thread's time in them 23 → 15 µs a publish. Measured under `npm run
 * bench`'s loads, alternating with the same board without the flag: publishes 9–12% faster on
 * either store (the board's CPU per publish 362 → 324 µs on PostgreSQL), lexical searches with
 * every query new 4–9%, cached reads unchanged (they allocate little). 64 MiB did no better.
 */
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=32'] as const;
