/**
 * A local HTTP server speaking the OpenAI embeddings API (`POST /v1/embeddings`), standing in
 * for a remote provider. Vectors are deterministic: one dimension per letter a–z, counting
 * letters, so texts sharing letters are close. Behaviour per call is scripted by the test.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Script = 'ok' | 'fail-500' | 'fail-429' | 'fail-400' | 'hang' | 'shuffle';

export interface EmbeddingsServer {
  url: string;
  calls: { auth: string | undefined; input: string[]; model: string }[];
  /** Behaviour of the next calls, in order; 'ok' once the script runs out. */
  script: Script[];
  close(): Promise<void>;
}

export function letterVector(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const ch of text.toLowerCase()) {
    const i = ch.charCodeAt(0) - 97;
    if (i >= 0 && i < 26) v[i]! += 1;
  }
  return v;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (d) => (s += d));
    req.on('end', () => resolve(s));
  });

export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  const state: EmbeddingsServer = { url: '', calls: [], script: [], close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as { input: string[]; model: string };
    state.calls.push({ auth: req.headers.authorization, input: body.input, model: body.model });
    const step = state.script.shift() ?? 'ok';
    if (step === 'hang') return; // never answers
    if (step === 'fail-500') return void res.writeHead(500).end('{"error":"boom"}');
    if (step === 'fail-429') return void res.writeHead(429).end('{"error":"slow down"}');
    if (step === 'fail-400') return void res.writeHead(400).end('{"error":"bad model"}');
    let data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: letterVector(t) }));
    if (step === 'shuffle') data = data.reverse();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
