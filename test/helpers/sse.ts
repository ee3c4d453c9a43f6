/** Reads a Server-Sent Events response the way EventSource does: comments, ids, events, data. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseReader {
  events: SseEvent[];
  comments: string[];
  retry: number | undefined;
  /** Resolves once `n` events arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once a comment satisfies `test`. */
  waitForComment(test: (c: string) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function readSse(res: Response): SseReader {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const out: SseReader = {
    events: [],
    comments: [],
    retry: undefined,
    waitFor: (n, timeoutMs = 5000) => until(() => out.events.length >= n, timeoutMs, `${n} events (got ${out.events.length})`).then(() => out.events.slice(0, n)),
    waitForComment: (test, timeoutMs = 5000) => until(() => out.comments.some(test), timeoutMs, 'a comment'),
    close: async () => {
      await reader.cancel().catch(() => undefined);
    },
  };
  let buffer = '';
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) out.comments.push(line.slice(1).trim());
          else if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
          else if (line.startsWith('retry: ')) out.retry = Number(line.slice(7));
        }
        if (data.length) out.events.push({ id, event, data: JSON.parse(data.join('\n')) });
      }
    }
  })();
  return out;
}

async function until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
