/**
 * The benchmarks' settings, read from the environment once and validated: a typo or a bad
 * value stops the run with every problem named, instead of measuring with NaN.
 */
import { z } from 'zod';

const count = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);
const list = z.string().trim().min(1).transform((s) => s.split(',').map((v) => v.trim()));
/** Positive whole numbers, comma-separated. */
const sizes = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) => s.split(',').map(Number))
    .pipe(z.array(z.number().int().positive()));

const schema = z.object({
  /** `npm run bench`: seconds each side of a row is measured, cut into BENCH_SLICES slices. */
  BENCH_DURATION: z.coerce.number().positive().default(6),
  BENCH_SLICES: count(1, 3),
  /** Seconds each side of a row runs unmeasured before its first slice. */
  BENCH_WARMUP: z.coerce.number().min(0).default(1),
  BENCH_CONNECTIONS: count(1, 32),
  BENCH_WRITE_CONNECTIONS: count(1, 16),
  BENCH_SEED: count(1, 4000),
  /** Measures only these stores (sqlite, postgresql). */
  BENCH_STORES: list.optional(),
  BENCH_DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/test'),
  BENCH_REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Handed to the processes a bench starts, so they find `node` as this one did. */
  PATH: z.string().default(''),
  /** `npm run bench:search`. */
  BENCH_MODEL: z.string().optional(),
  BENCH_SIZES: sizes('10000,100000'),
  BENCH_QUERIES: count(1, 200),
  /** `npm run bench:events`. */
  BENCH_SUBSCRIBERS: count(1, 50),
  BENCH_PUBLISHES: count(1, 100),
  BENCH_IDLE_STREAMS: count(0, 10_000),
  /** `npm run bench:swarm`: agents per run, each's pause between steps, and seconds measured (after a warm-up). */
  SWARM_SIZES: sizes('100,300,1000,2000,3000'),
  SWARM_THINK_MS: count(1, 2000),
  SWARM_SECONDS: count(1, 20),
  SWARM_WARMUP: count(0, 5),
});

export type BenchSettings = z.infer<typeof schema>;

export function loadBenchSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`bad bench settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** This process's settings. */
export const BENCH = loadBenchSettings(process.env);
