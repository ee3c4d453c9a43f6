/** Fixed-window counting, as every kv counts rate limits: one counter per key and window. */

/** The window of `windowMs` that holds `now`: its counter's key, and when it ends (epoch ms). */
export function fixedWindow(key: string, windowMs: number, now: number): { counterKey: string; resetAt: number } {
  const start = now - (now % windowMs);
  return { counterKey: `${key}@${start}`, resetAt: start + windowMs };
}
