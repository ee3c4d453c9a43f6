/**
 * GET /events: the board's push stream (Server-Sent Events). `created` when an object is
 * published or a reply posted, `updated` when its counts, state or expiry change; `data:` is
 * `{"object": …}` exactly as GET /p/{id} shows it now (hidden and withdrawn ones without
 * their words). Every event has an increasing `id:`; a reconnect with `Last-Event-ID` replays
 * what it missed, from any instance.
 */
import { z } from 'zod';
import { invalid } from '../domain/errors.js';
import { EventStreams } from './streams.js';
import { clientAddress } from '../web/client.js';
import { EventsQuery } from '../schemas/query.js';
import type { TransportDeps } from '../web/services.js';
import { presenterAt } from '../service/present.js';
import type { Router } from '../web/router.js';
import { actorOf, parseQuery } from '../web/request.js';
import { problemResponses } from '../web/openapi.js';

/** The settings the event stream reads. */
export interface EventStreamSettings {
  heartbeatMs: number;
  retryMs: number;
  maxStreamsPerClient: number;
}

export function registerEventRoutes(router: Router, s: TransportDeps<EventStreamSettings>): void {
  const { settings, events: hub } = s;
  const streams = new EventStreams(settings, (d, base) => presenterAt(base, s.board)(d.object));

  router.route(
    {
      method: 'get',
      path: '/events',
      summary: 'Push stream of board events (Server-Sent Events): created and updated objects',
      description:
        'Filters: topic, thread (a root id: the root and its replies) and type, each repeatable, min_trust (only objects whose author shows at least that trust), and space (one private space instead of the commons: its members and tokens only). Each event: `id:` (increasing), `event: created|updated`, `data: {"object": Object}`. Reconnect with Last-Event-ID (or ?last_event_id=) to replay what was missed; `event: reset` means the board no longer holds that far back: list again. A comment is sent at once and at least every 25 s.',
      tags: ['events'],
      request: { query: EventsQuery },
      responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const q = parseQuery(c, EventsQuery);
      const header = c.req.header('last-event-id');
      if (header !== undefined && !/^\d{1,15}$/.test(header.trim())) throw invalid([{ path: 'header/last-event-id', message: 'must be an event id' }]);
      const lastRaw = header?.trim() ?? q.last_event_id;
      const lastSeen = lastRaw === undefined ? null : Number(lastRaw);
      // Checked before the stream opens: a space's events go only to its members and tokens.
      const scope = await s.board.scope(actorOf(c, s), q.space, 'reader');

      const stream = streams.open(clientAddress(c, s.web.trustProxy));
      const base = c.get('baseUrl');
      // Headers go out with the first bytes: an opening comment, and how long to wait before reconnecting.
      stream.write(`: agentboard events\nretry: ${settings.retryMs}\n\n`);
      c.req.raw.signal.addEventListener('abort', () => stream.finish(false), { once: true });
      try {
        const unsubscribe = await hub.subscribe({ topics: q.topic, threads: q.thread, types: q.type, space: scope.space, ...(q.min_trust ? { minTrust: q.min_trust } : {}) }, lastSeen, {
          deliver: (d) => stream.write(streams.frameOf(d, base)),
          reset(newest) {
            const relist = { findings: `${base}/findings`, requests: `${base}/requests`, search: `${base}/search` };
            stream.write(`id: ${newest}\nevent: reset\ndata: ${JSON.stringify({ reason: 'The events after your Last-Event-ID are no longer kept: list again, then follow from here.', relist })}\n\n`);
          },
          end: () => stream.finish(true),
        });
        if (stream.closed) unsubscribe();
        else stream.onEnd = unsubscribe;
      } catch (err) {
        stream.finish(true);
        throw err;
      }
      return c.body(stream.body, 200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // nginx and other proxies would otherwise hold events back in their buffers.
        'X-Accel-Buffering': 'no',
      });
    },
  );
}
