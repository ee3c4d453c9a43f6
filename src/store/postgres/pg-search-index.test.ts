import { describe, expect, it } from 'vitest';
import { corpusStatsDue, estimatedCount, indexReadCheaper, recentBuckets } from './pg-bm25.js';

describe('indexReadCheaper', () => {
  // The cases measured on `npm run bench:search`'s corpus (window 300).
  it('reads through the index where common words seldom meet', () => {
    // 100,000 objects, three words of a quarter each: 1,939 matches, 15 ms through the index against 34 newest first.
    expect(indexReadCheaper(100_000, [25_348, 25_034, 25_100], 300, 'window')).toBe(true);
    // 10,000 objects, two such words: 678 matches, 2.0 ms against 8.8.
    expect(indexReadCheaper(10_000, [2_530, 2_500], 300, 'window')).toBe(true);
  });

  it('reads newest first where they often meet', () => {
    // 100,000 objects, two words of a quarter each: 6,818 matches, 9.8 ms newest first against 38.7.
    expect(indexReadCheaper(100_000, [25_348, 25_034], 300, 'window')).toBe(false);
    // Words most objects hold meet in most of them.
    expect(indexReadCheaper(1_000_000, [800_000, 700_000], 300, 'window')).toBe(false);
  });

  it('counts the first matches of words that often meet in the table\'s order, and of words that seldom meet off the index', () => {
    // 100,000 objects, two common words' first 100: 5-7 ms off the index, 2.4-2.8 in order.
    expect(indexReadCheaper(100_000, [25_348, 25_034], 100, 'count')).toBe(false);
    // Three such words' (1,939 matches): 4.5 ms off the index, 7.0-7.5 in order.
    expect(indexReadCheaper(100_000, [25_348, 25_034, 25_100], 100, 'count')).toBe(true);
  });

  it('never expects a read newest first to go past the whole table, nor a word in more objects than there are', () => {
    // Fewer matches than the window: newest first reads every row; the index reads only the matches.
    expect(indexReadCheaper(1_000, [10, 10], 300, 'window')).toBe(true);
    // A count above the (stale) total is read as the total.
    expect(indexReadCheaper(1_000, [5_000, 5_000], 300, 'window')).toBe(false);
    expect(indexReadCheaper(0, [], 300, 'window')).toBe(true);
  });
});

describe('recentBuckets', () => {
  it("asks for the newest buckets of 4,096 seqs that hold a window's matches 1.2 times over, by chance, and the filling one", () => {
    // 1,000,000 objects, four words each in a quarter: 3,906 matches by chance, 92,160 rows, 23 buckets.
    expect(recentBuckets(1_000_000, [250_000, 250_000, 250_000, 250_000], 300)).toBe(24);
    // Two such words: 62,500 matches, 5,760 rows.
    expect(recentBuckets(1_000_000, [250_000, 250_000], 300)).toBe(3);
  });

  it('asks for none where the matches are likely spread over half the board or more', () => {
    expect(recentBuckets(1_000_000, [1_000, 1_000], 300)).toBeUndefined();
    expect(recentBuckets(10_000, [2_500, 2_500, 2_500, 2_500], 300)).toBeUndefined();
  });

  it('makes a read off the newest buckets cheaper than reading newest first, where a read of every posting is not', () => {
    // Two words each in a quarter of 1,000,000 objects: 3 buckets.
    expect(indexReadCheaper(1_000_000, [250_000, 250_000], 300, 'window')).toBe(false);
    expect(indexReadCheaper(1_000_000, [250_000, 250_000], 300, 'window', 3 * 4096)).toBe(true);
    // Words in most objects: the window is in the newest few hundred rows, fewer than a bucket.
    expect(indexReadCheaper(1_000_000, [800_000, 800_000], 300, 'window', recentBuckets(1_000_000, [800_000, 800_000], 300)! * 4096)).toBe(false);
  });
});

describe('estimatedCount', () => {
  it("takes ANALYZE's share for a word in 10,000 objects and a hundredth of them or more", () => {
    expect(estimatedCount(0.25, 100_000)).toBe(25_000);
    expect(estimatedCount(0.012, 1_000_000)).toBe(12_000);
  });

  it('leaves fewer objects, or a smaller share (a sample too small to trust), to be counted', () => {
    // A quarter of 10,000: counting costs little.
    expect(estimatedCount(0.25, 10_000)).toBeUndefined();
    // 50,000 objects, but a two-hundredth of 10,000,000: about 150 of 30,000 sampled rows.
    expect(estimatedCount(0.005, 10_000_000)).toBeUndefined();
    expect(estimatedCount(0, 1_000_000)).toBeUndefined();
  });
});

describe('corpusStatsDue', () => {
  it('reads the corpus statistics again after 30 seconds while their statement is quick', () => {
    expect(corpusStatsDue(1_000, 40)).toBe(31_000);
    expect(corpusStatsDue(1_000, 300)).toBe(31_000);
  });

  it('waits a hundred times as long as the statement took once that is longer: 2.5 s read, 250 s kept', () => {
    expect(corpusStatsDue(1_000, 2_500)).toBe(251_000);
  });
});
