/**
 * The thread a local model runs on (threaded-embedder.ts starts it): it loads the model and
 * answers each request of texts with their vectors, their buffers moved, not copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerReply } from '../worker-requests.js';
import { LocalEmbedder } from './local-embedder.js';

export interface EmbedThreadData {
  model: string;
  modelsDir: string;
  threads: number;
}

export type EmbedRequest = { texts: string[] };
type EmbedReply = WorkerReply<(Float32Array | null)[]>;

const { model, modelsDir, threads } = workerData as EmbedThreadData;
const embedder = new LocalEmbedder(model, modelsDir, threads);

parentPort!.on('message', ({ id, texts }: EmbedRequest & { id: number }) => {
  embedder.embed(texts).then(
    (vectors) => {
      const reply: EmbedReply = { id, result: vectors };
      // Each buffer once: a list naming one twice cannot be sent.
      parentPort!.postMessage(reply, [...new Set(vectors.flatMap((v) => (v ? [v.buffer as ArrayBuffer] : [])))]);
    },
    (err: unknown) => parentPort!.postMessage({ id, error: { message: err instanceof Error ? err.message : String(err) } } satisfies EmbedReply),
  );
});
