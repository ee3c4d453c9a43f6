/**
 * How long a count of the objects holding a word stays good enough to weigh that word (BM25's
 * inverse document frequency) in either store: until the board's object count has moved by a
 * hundredth since it was taken. Counting a common word costs in proportion to the objects
 * holding it, and its
 * weight moves with the logarithm of its share: a hundredth more or fewer objects moves it by
 * less than that.
 */
const RECOUNT_SHARE = 0.01;

/** Whether a count taken when the board held `at` objects still weighs its word now that it holds `now`. */
export const countStillWeighs = (at: number, now: number): boolean => Math.abs(now - at) <= at * RECOUNT_SHARE;
