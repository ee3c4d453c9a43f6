import { describe, expect, it } from 'vitest';
import { normalizeFilterTopic, normalizeTopic, registryTopic } from './topics.js';

describe('normalizeTopic', () => {
  it.each([
    ['Postgres', 'postgres'],
    ['Connection Pool', 'connection-pool'],
    ['  --C++ / Rust__  ', 'c-rust'],
    ['Café Crème', 'cafe-creme'],
    ['ﬁle-system', 'file-system'],
    ['İstanbul', 'istanbul'],
    ['node.js@20', 'node-js-20'],
    ['日本語', ''],
    ['---', ''],
  ])('%j → %j', (raw, slug) => expect(normalizeTopic(raw)).toBe(slug));
});

describe('normalizeFilterTopic', () => {
  it('accepts 2–40 characters before and after normalisation', () => {
    expect(normalizeFilterTopic('SQLite')).toBe('sqlite');
    expect(normalizeFilterTopic('a')).toBeNull();
    expect(normalizeFilterTopic('a!')).toBeNull();
    expect(normalizeFilterTopic('x'.repeat(41))).toBeNull();
    expect(normalizeFilterTopic('x'.repeat(40))).toBe('x'.repeat(40));
  });
});

it('registryTopic turns dots and slashes into hyphens', () => {
  expect(registryTopic('io.github.Acme/weather')).toBe('io-github-acme-weather');
});
