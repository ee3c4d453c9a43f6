import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../ports/embedder.js';
import { embeddingText } from './embed-worker.js';
import { PublishVectors } from './publish-vectors.js';

/** An embedder answering each text with its length (null for empty), after `delayMs`, or failing. */
function embedder(o: { delayMs?: number; fail?: boolean } = {}) {
  const calls: string[][] = [];
  const e: Embedder = {
    model: 'm',
    source: 'test',
    remedy: 'none',
    async embed(texts) {
      calls.push([...texts]);
      await new Promise((r) => setTimeout(r, o.delayMs ?? 0));
      if (o.fail) throw new Error('model down');
      return texts.map((t) => (t.trim() ? Float32Array.of(t.length) : null));
    },
  };
  return { e, calls };
}

const obj = (content: string) => ({ title: 'T', content, topics: ['a-b'] });

describe('PublishVectors', () => {
  it('embeds the publishes of one turn of the event loop in one call, each its own text', async () => {
    const { e, calls } = embedder();
    const counted: number[] = [];
    const v = new PublishVectors(e, 1000, { embedded: (n) => counted.push(n) });
    const [a, b, none] = await Promise.all([v.vectorOf(obj('one')), v.vectorOf(obj('three')), v.vectorOf({ title: ' ', content: ' ', topics: [] })]);
    expect(none).toBeNull();
    expect(counted).toEqual([2]);
    expect(calls).toEqual([[embeddingText(obj('one')), embeddingText(obj('three')), embeddingText({ title: ' ', content: ' ', topics: [] })]]);
    expect(a).toEqual({ model: 'm', vector: Float32Array.of(embeddingText(obj('one')).length) });
    expect(b!.vector[0]).toBe(embeddingText(obj('three')).length);
    await v.vectorOf(obj('later'));
    expect(calls).toHaveLength(2);
  });

  it('answers null past its budget, and then leaves objects to the queue without asking for a while', async () => {
    let now = 0;
    const { e, calls } = embedder({ delayMs: 200 });
    const v = new PublishVectors(e, 20, undefined, () => now);
    expect(await v.vectorOf(obj('slow'))).toBeNull();
    now += 29_000;
    expect(await v.vectorOf(obj('resting'))).toBeNull();
    expect(calls).toHaveLength(1);
    now += 2_000;
    const late = v.vectorOf(obj('asked again'));
    expect(calls).toHaveLength(1);
    expect(await late).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it('answers null when the model fails, for every publish of the call', async () => {
    const { e, calls } = embedder({ fail: true });
    const v = new PublishVectors(e, 1000);
    expect(await Promise.all([v.vectorOf(obj('a')), v.vectorOf(obj('b'))])).toEqual([null, null]);
    expect(await v.vectorOf(obj('c'))).toBeNull();
    expect(calls).toHaveLength(1);
  });
});
