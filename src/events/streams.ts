/** The open event streams of one process: their bytes, their per-client count, and one heartbeat for all. */
import { DomainError } from '../domain/errors.js';
import type { Delivery } from '../service/event-hub.js';

const encoder = new TextEncoder();
/** A stream whose client reads slower than this many queued bytes is closed; it reconnects and replays. */
const MAX_QUEUED_BYTES = 1 << 20;

/** One client's stream: what it is written, and how it ends. */
export interface OpenStream {
  body: ReadableStream<Uint8Array>;
  write(text: string): void;
  /** Ends the stream; `closeBody` when the board ends it rather than the client. */
  finish(closeBody: boolean): void;
  readonly closed: boolean;
  /** Called once when the stream ends, however it ends (the client leaves, reads too slowly, or the board ends it). */
  onEnd: (() => void) | null;
}

export class EventStreams {
  readonly #perClient = new Map<string, number>();
  readonly #open = new Set<OpenStream>();
  /** Each delivery's frame, by base URL: built once and written to every stream that matches. */
  readonly #frames = new WeakMap<Delivery, Map<string, string>>();

  constructor(
    private readonly settings: { heartbeatMs: number; maxStreamsPerClient: number },
    private readonly present: (d: Delivery, base: string) => unknown,
  ) {
    const beat = setInterval(() => {
      for (const stream of this.#open) stream.write(': heartbeat\n\n');
    }, settings.heartbeatMs);
    beat.unref();
  }

  /** The frame of a delivery for streams under `base`. */
  frameOf(d: Delivery, base: string): string {
    let byBase = this.#frames.get(d);
    if (!byBase) this.#frames.set(d, (byBase = new Map()));
    let frame = byBase.get(base);
    if (frame === undefined) {
      frame = `id: ${d.event.seq}\nevent: ${d.event.kind}\ndata: ${JSON.stringify({ object: this.present(d, base) })}\n\n`;
      byBase.set(base, frame);
    }
    return frame;
  }

  /** Opens a stream for `client`, or refuses (429) when it holds as many as it may. */
  open(client: string): OpenStream {
    const streams = this.#perClient.get(client) ?? 0;
    const { maxStreamsPerClient } = this.settings;
    if (streams >= maxStreamsPerClient) throw new DomainError('rate-limited', `At most ${maxStreamsPerClient} open event streams per client; close one first.`);
    this.#perClient.set(client, streams + 1);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const release = () => {
      this.#open.delete(stream);
      const n = (this.#perClient.get(client) ?? 1) - 1;
      if (n > 0) this.#perClient.set(client, n);
      else this.#perClient.delete(client);
    };
    const stream: OpenStream & { closed: boolean } = {
      closed: false,
      onEnd: null,
      body: new ReadableStream<Uint8Array>(
        {
          start: (ctl) => void (controller = ctl),
          cancel: () => stream.finish(false),
        },
        { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
      ),
      write(text) {
        if (stream.closed) return;
        if ((controller.desiredSize ?? 0) < 0) return stream.finish(true);
        controller.enqueue(encoder.encode(text));
      },
      finish(closeBody) {
        if (stream.closed) return;
        stream.closed = true;
        release();
        stream.onEnd?.();
        if (closeBody) controller.close();
      },
    };
    this.#open.add(stream);
    return stream;
  }
}
