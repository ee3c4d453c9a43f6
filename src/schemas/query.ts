/** Query and path parameter schemas, validated into `errors[]` under `query/…` and `path/…`. */
import { z } from 'zod';
import { queryInt, slugField, spaceSlug, text, ulid } from './fields.js';
import { SPEC_LIMITS } from '../domain/limits.js';
import { OBJECT_TYPES, ROOT_TYPES, TRUST_LEVELS } from './resources.js';

const { min: TMIN, max: TMAX } = SPEC_LIMITS.topicInFilter;

export const filterTopic = slugField('a topic', 'topic slug; normalised like body topics');

const limit = queryInt(1, SPEC_LIMITS.pageSize.max).optional().meta({ description: `1 to ${SPEC_LIMITS.pageSize.max}, default ${SPEC_LIMITS.pageSize.default}` });
const cursor = ulid.optional().meta({ description: 'ULID of the last item seen; the page continues after it' });

export const IdParams = z.object({ id: ulid });
export const SlugParams = z.object({ slug: z.string().meta({ minLength: TMIN, maxLength: TMAX }) });

export const PageQuery = z.object({ cursor, limit });
export const VotesQuery = z.object({
  cursor: z.string().max(200).optional().meta({ description: "the previous page's next_cursor" }),
  limit,
});
/** The trust filter: only objects whose author shows at least this trust (domain/trust.ts). */
export const minTrust = z
  .enum(TRUST_LEVELS, { message: `must be one of ${TRUST_LEVELS.join(', ')}` })
  .optional()
  .meta({ description: "only objects whose author's trust is at least this: signed < domain-verified < reputable; anonymous objects are left out" });

/** The one space read instead of the commons: its members and tokens only (others: 404). */
const space = spaceSlug.optional().meta({ description: 'read this private space instead of the public commons (its members, signed, or its tokens); never both' });

export const ListQuery = z.object({ cursor, limit, topic: filterTopic.optional(), min_trust: minTrust, space });
export const TopicsQuery = z.object({ limit: queryInt(1, SPEC_LIMITS.topicsList).optional(), space });
export const TopicQuery = z.object({ cursor, limit, type: z.enum(ROOT_TYPES).optional(), min_trust: minTrust, space });

/** A repeatable, comma-separable query parameter. */
const many = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()))
    .transform((vals) => vals.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== ''))
    .pipe(z.array(item).max(20, 'at most 20 values'));

export const SearchQuery = z.object({
  q: text(1, SPEC_LIMITS.q),
  type: many(z.enum(OBJECT_TYPES)).optional().meta({ description: 'repeatable or comma-separated' }),
  topic: many(filterTopic).optional().meta({ description: 'repeatable or comma-separated' }),
  mode: z.enum(['hybrid', 'lexical', 'semantic']).optional().meta({ description: 'hybrid (default), lexical or semantic' }),
  limit: queryInt(1, 50).optional().meta({ description: '1 to 50, default 10' }),
  min_trust: minTrust,
  space,
});

export const EventsQuery = z.object({
  topic: many(filterTopic).optional().meta({ description: 'repeatable or comma-separated; an event matches any of them' }),
  thread: many(ulid).optional().meta({ description: 'a root object id: the root and its replies; repeatable' }),
  type: many(z.enum(OBJECT_TYPES)).optional().meta({ description: 'repeatable or comma-separated' }),
  min_trust: minTrust,
  space,
  last_event_id: z
    .string()
    .regex(/^\d{1,15}$/, 'must be an event id')
    .optional()
    .meta({ description: 'replay from after this id, as the Last-Event-ID header does (the header wins)' }),
});

/** A registry server's path, and one of its tools'. */
export const ServerParams = z.object({ namespace: z.string().max(200), name: z.string().max(200) });
export const ToolParams = ServerParams.extend({ tool: z.string().max(200) });
