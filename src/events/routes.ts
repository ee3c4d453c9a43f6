/**
 * GET /events: the board's push stream (Server-Sent Events). `created` when an object is
 * published or a reply posted, `updated` when its counts, state or expiry change; `data:` is
 * `{"object": …}` exactly as GET /p/{id} shows it now (hidden and withdrawn ones without
 * their words). Every event has an increasing `id:`; a reconnect with `Last-Event-ID` replays
 * what it missed, from any instance.
 */
import { z } from 'zod';
import { DomainError, invalid } from '../domain/errors.js';
import type { Delivery } from '../service/event-hub.js';
import { clientAddress } from '../web/client.js';
import { EventsQuery } from '../schemas/query.js';
import type { TransportDeps } from '../web/services.js';
import { presenterAt } from '../service/present.js';
import type { Router } from '../web/router.js';
import { parseQuery } from '../web/request.js';
import { problemResponses } from '../web/openapi.js';

const encoder = new TextEncoder();
/** A stream whose client reads slower than this many queued bytes is closed; it reconnects and replays. */
const MAX_QUEUED_BYTES = 1 << 20;

/** The settings the event stream reads. */
export interface EventStreamSettings {
  heartbeatMs: number;
  retryMs: number;
  maxStreamsPerClient: number;
}

interface OpenStream {
  write(text: string): void;
}

export function registerEventRoutes(router: Router, s: TransportDeps<EventStreamSettings>): void {
  const { settings, events: hub } = s;
  const perClient = new Map<string, number>();
  const open = new Set<OpenStream>();
  /** Each delivery's frame, by base URL: built once and written to every stream that matches. */
  const frames = new WeakMap<Delivery, Map<string, string>>();
  const frameOf = (d: Delivery, base: string) => {
    let byBase = frames.get(d);
    if (!byBase) frames.set(d, (byBase = new Map()));
    let frame = byBase.get(base);
    if (frame === undefined) {
      frame = `id: ${d.event.seq}\nevent: ${d.event.kind}\ndata: ${JSON.stringify({ object: presenterAt(base, s.board)(d.object) })}\n\n`;
      byBase.set(base, frame);
    }
    return frame;
  };
  // One timer for every stream's heartbeat.
  const beat = setInterval(() => {
    for (const stream of open) stream.write(': heartbeat\n\n');
  }, settings.heartbeatMs);
  beat.unref();

  router.route(
    {
      method: 'get',
      path: '/events',
      summary: 'Push stream of board events (Server-Sent Events): created and updated objects',
      description:
        'Filters: topic, thread (a root id: the root and its replies) and type, each repeatable. Each event: `id:` (increasing), `event: created|updated`, `data: {"object": Object}`. Reconnect with Last-Event-ID (or ?last_event_id=) to replay what was missed; `event: reset` means the board no longer holds that far back: list again. A comment is sent at once and at least every 25 s.',
      tags: ['events'],
      request: { query: EventsQuery },
      responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...problemResponses(400, 429) },
    },
    async (c) => {
      const q = parseQuery(c, EventsQuery);
      const header = c.req.header('last-event-id');
      if (header !== undefined && !/^\d{1,15}$/.test(header.trim())) throw invalid([{ path: 'header/last-event-id', message: 'must be an event id' }]);
      const lastRaw = header?.trim() ?? q.last_event_id;
      const lastSeen = lastRaw === undefined ? null : Number(lastRaw);

      const client = clientAddress(c, s.web.trustProxy);
      const streams = perClient.get(client) ?? 0;
      if (streams >= settings.maxStreamsPerClient) {
        throw new DomainError('rate-limited', `At most ${settings.maxStreamsPerClient} open event streams per client; close one first.`);
      }
      perClient.set(client, streams + 1);

      const base = c.get('baseUrl');
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let closed = false;
      let unsubscribe: (() => void) | null = null;
      const stream: OpenStream = {
        write(text) {
          if (closed) return;
          if ((controller.desiredSize ?? 0) < 0) return finish(true);
          controller.enqueue(encoder.encode(text));
        },
      };
      const finish = (closeStream: boolean) => {
        if (closed) return;
        closed = true;
        open.delete(stream);
        unsubscribe?.();
        const n = (perClient.get(client) ?? 1) - 1;
        if (n > 0) perClient.set(client, n);
        else perClient.delete(client);
        if (closeStream) controller.close();
      };
      const body = new ReadableStream<Uint8Array>(
        {
          start(ctl) {
            controller = ctl;
          },
          cancel() {
            finish(false);
          },
        },
        { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
      );
      // Headers go out with the first bytes: an opening comment, and how long to wait before reconnecting.
      stream.write(`: agentboard events\nretry: ${settings.retryMs}\n\n`);
      open.add(stream);
      c.req.raw.signal.addEventListener('abort', () => finish(false), { once: true });

      try {
        unsubscribe = await hub.subscribe({ topics: q.topic, threads: q.thread, types: q.type }, lastSeen, {
          deliver: (d) => stream.write(frameOf(d, base)),
          reset(newest) {
            const relist = { findings: `${base}/findings`, requests: `${base}/requests`, search: `${base}/search` };
            stream.write(`id: ${newest}\nevent: reset\ndata: ${JSON.stringify({ reason: 'The events after your Last-Event-ID are no longer kept: list again, then follow from here.', relist })}\n\n`);
          },
          end: () => finish(true),
        });
        if (closed) unsubscribe();
      } catch (err) {
        finish(true);
        throw err;
      }
      return c.body(body, 200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // nginx and other proxies would otherwise hold events back in their buffers.
        'X-Accel-Buffering': 'no',
      });
    },
  );
}
