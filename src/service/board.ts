/**
 * The board's verbs: publish, reply, read, vote, moderate. Every transport (JSON API, HTML,
 * MCP) calls these, so each verb validates its input with the resource schemas, applies the
 * domain's rules and calls the store port, and throws only DomainErrors. This is the one layer
 * that sees both the schemas and the domain; the domain itself imports neither schemas nor
 * adapters.
 */
import type { BoardLimits } from '../domain/limits.js';
import type { RootType } from '../domain/model.js';
import type { Store } from '../ports/store.js';
import { ContradictBody, CreateObjectBody, CreateReplyBody, CreateStatusBody, VoteBody } from '../schemas/resources.js';
import { correctionRefusal } from '../domain/corrections.js';
import { parseOrThrow, toFieldIssues } from '../schemas/parse.js';
import { derivedFields } from '../domain/derived.js';
import { eventOf } from '../domain/events.js';
import { DomainError, invalid, notFound, type FieldIssue } from '../domain/errors.js';
import { extendedExpiry, resolveExpiry } from '../domain/lifetimes.js';
import { ANONYMOUS_VOTER, type TrustLevel, type Actor, type LiveCriteria, type Page, type PageResult, type StoredObject, type VoteKind, type VoteRecord } from '../domain/model.js';
import { toPage } from '../domain/paging.js';
import type { Clock, Ids } from '../ports/clock.js';
import { rederiveReputation } from './reputation-upkeep.js';
import { stateOf, wordsWithheld } from '../domain/state.js';
import type { TopicCount } from '../ports/object-store.js';
import type { PublishVectors } from './search/publish-vectors.js';
import { lockScope } from './lock-scope.js';
import { newestVersion, publishSuperseding } from './supersede.js';
import { quarantinedError, refuseQuarantined } from './quarantine.js';
import type { Scope, SpaceRole } from '../domain/spaces.js';
import { scopeOf, visibleObject, type Grants } from './visibility.js';

/** A vote page's cursor: the position of its last vote, opaque to clients. */
function encodeVoteCursor(v: { updatedAt: number; voterId: string }): string {
  return Buffer.from(JSON.stringify([v.updatedAt, v.voterId])).toString('base64url');
}

function decodeVoteCursor(cursor: string): { updatedAt: number; voterId: string } {
  try {
    const [updatedAt, voterId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isInteger(updatedAt) && typeof voterId === 'string') return { updatedAt: updatedAt as number, voterId };
  } catch {
    // Falls through to the validation error.
  }
  throw invalid([{ path: 'query/cursor', message: 'is not a cursor this listing gave out' }]);
}

export interface BoardDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  limits: BoardLimits;
  /** Makes a published object's vector as it is stored; absent, every object is left to the embedding queue. */
  vectors?: PublishVectors | null;
  /** Who holds what in each space; absent, every space is refused (as not found). */
  grants?: Grants;
}

export interface Published {
  object: StoredObject;
  /** False when an identical live object was returned instead. */
  created: boolean;
}

export interface ObjectDetail {
  object: StoredObject;
  replies: PageResult<StoredObject>;
}

export interface TopicView {
  topic: TopicCount;
  objects: PageResult<StoredObject>;
  related: TopicCount[];
}

const noPage = <T>(): PageResult<T> => ({ items: [], nextCursor: null });


export class Board {
  constructor(readonly deps: BoardDeps) {}

  /** The live criteria for "now", in `scope` (the commons unless given). */
  live(scope?: Scope): LiveCriteria {
    return { now: this.deps.clock.now(), disputeMinContradictions: this.deps.limits.disputeMinContradictions, space: scope?.space ?? null };
  }

  /** Where `actor` writes or reads when it names `slug` (absent: the commons); 404 unless its role allows `needed`. */
  scope(actor: Actor | undefined, slug: string | null | undefined, needed: SpaceRole): Promise<Scope> {
    return scopeOf(actor, slug, this.deps.grants, needed);
  }

  /** The object, if `reader` may act on it with `needed` (no reader: the commons only); else 404 as for an unknown id. */
  async #visible(id: string, reader: Actor | undefined, needed: SpaceRole): Promise<StoredObject> {
    return visibleObject(await this.deps.store.objects.get(id, this.live()), id, reader, this.deps.grants, needed);
  }

  async publish(type: RootType, body: unknown, actor: Actor): Promise<Published> {
    const parsed = type === 'status' ? CreateStatusBody.safeParse(body) : CreateObjectBody.safeParse(body);
    const issues: FieldIssue[] = parsed.success ? [] : toFieldIssues(parsed.error);
    // Reported with the schema's issues so one answer names every bad field.
    if (type === 'artifact' && (typeof body !== 'object' || body === null || !('source_url' in body))) {
      issues.push({ path: 'source_url', message: 'is required for artifacts' });
    }
    if (!parsed.success) throw invalid(issues);
    const input: CreateObjectBody = parsed.data;
    const scope = await this.scope(actor, input.space, 'writer');
    const live = this.live(scope);
    const expiresAt = this.#expiry(() => resolveExpiry({ expiresIn: input.expires_in, expiresAt: input.expires_at }, type, live.now, this.deps.limits), issues);
    if (issues.length) throw invalid(issues);
    return this.#insert(
      {
        type,
        title: input.title,
        content: input.content,
        topics: input.topics,
        sourceUrl: input.source_url ?? null,
        parentId: null,
        expiresAt: expiresAt!,
        space: scope.space,
      },
      actor,
      live,
      input.supersedes,
    );
  }

  async reply(parentId: string, body: unknown, actor: Actor): Promise<Published> {
    const input = parseOrThrow(CreateReplyBody, body);
    const parent = await this.#visible(parentId, actor, 'writer');
    const live = this.live(parent);
    if (parent.parentId !== null) {
      throw new DomainError('not-a-root-object', `Object ${parentId} is a reply; reply to its root ${parent.parentId} instead.`);
    }
    const state = stateOf(parent, live);
    if (state !== 'live') throw new DomainError('parent-not-live', `Object ${parentId} is ${state}; only live objects take replies.`);
    const issues: FieldIssue[] = [];
    const topics = input.topics ?? parent.topics;
    const bounds = parent.type as RootType;
    const expiresAt = this.#expiry(
      () => resolveExpiry({ expiresIn: input.expires_in, expiresAt: input.expires_at }, bounds, live.now, this.deps.limits, parent.expiresAt),
      issues,
    );
    if (issues.length) throw invalid(issues);
    return this.#insert(
      {
        type: 'response',
        title: undefined,
        content: input.content,
        topics,
        sourceUrl: input.source_url ?? null,
        parentId,
        expiresAt: expiresAt!,
        // A reply belongs to its root's space.
        space: parent.space,
      },
      actor,
      live,
    );
  }

  /** The object in any state, if `reader` may see it (no reader: the commons only); else 404 as for an unknown id. */
  get(id: string, reader?: Actor): Promise<StoredObject> {
    return this.#visible(id, reader, 'reader');
  }

  /** The object in any state, with its first page of live replies (none for hidden or withdrawn). */
  async detail(id: string, page: Page, reader?: Actor): Promise<ObjectDetail> {
    const object = await this.get(id, reader);
    return { object, replies: await this.#repliesOf(object, page) };
  }

  /** The newest version of `o` (itself when nothing superseded it). */
  async newest(o: StoredObject): Promise<StoredObject> {
    return newestVersion(this.deps.store, o, this.live(), this.deps.limits.supersedeChainMax);
  }

  async replies(id: string, page: Page, reader?: Actor): Promise<PageResult<StoredObject>> {
    return this.#repliesOf(await this.get(id, reader), page);
  }

  /** An object's votes with their notes and evidence, most recent first. */
  async votes(id: string, page: { cursor?: string | undefined; limit: number }, reader?: Actor): Promise<PageResult<VoteRecord>> {
    return this.votesOf(await this.get(id, reader), page);
  }

  /**
   * The votes of an object already read. None are listed when its words are withheld (as with
   * its replies), and anonymous voters stay anonymous.
   */
  async votesOf(object: StoredObject, page: { cursor?: string | undefined; limit: number }): Promise<PageResult<VoteRecord>> {
    if (wordsWithheld(stateOf(object, this.live()))) return noPage();
    const after = page.cursor === undefined ? undefined : decodeVoteCursor(page.cursor);
    const rows = await this.deps.store.votes.list(object.id, { limit: page.limit + 1, ...(after ? { after } : {}) });
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return {
      items: items.map(({ voterId, ...v }) => ({ ...v, voter: voterId.startsWith(ANONYMOUS_VOTER) ? null : voterId })),
      nextCursor: rows.length > page.limit && last ? encodeVoteCursor(last) : null,
    };
  }

  /** Live root objects of one type (or several), newest first. */
  async list(type: RootType | readonly RootType[], filter: { topic?: string | undefined; minTrust?: TrustLevel | undefined }, page: Page, scope?: Scope): Promise<PageResult<StoredObject>> {
    const rows = await this.deps.store.objects.list({
      live: this.live(scope),
      types: typeof type === 'string' ? [type] : type,
      parentId: null,
      ...(filter.topic !== undefined ? { topic: filter.topic } : {}),
      ...(filter.minTrust ? { minTrust: filter.minTrust } : {}),
      ...(page.cursor !== undefined ? { before: page.cursor } : {}),
      limit: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  async topTopics(limit: number, scope?: Scope): Promise<TopicCount[]> {
    return this.deps.store.objects.topTopics(this.live(scope), this.deps.limits.topicListingThreshold, limit);
  }

  /**
   * Live root objects tagged `slug` with the topic's count and co-occurring topics; 404 when none
   * is live. With `minTrust`, the counts too are of the objects that pass it (none may).
   */
  async topic(slug: string, filter: { type?: RootType | undefined; minTrust?: TrustLevel | undefined }, page: Page, scope?: Scope): Promise<TopicView> {
    const live = this.live(scope);
    const { minTrust } = filter;
    const [count] = await this.deps.store.objects.topicCounts(live, [slug]);
    if (!count) throw notFound(`No live objects carry the topic "${slug}".`);
    const rows = await this.deps.store.objects.list({
      live,
      topic: slug,
      parentId: null,
      ...(filter.type ? { types: [filter.type] } : {}),
      ...(minTrust ? { minTrust } : {}),
      ...(page.cursor !== undefined ? { before: page.cursor } : {}),
      limit: page.limit + 1,
    });
    const related = await this.deps.store.objects.coTopics(live, slug, this.deps.limits.relatedTopicsMax, minTrust);
    const counted = minTrust ? ((await this.deps.store.objects.topicCounts(live, [slug], minTrust))[0] ?? { slug, count: 0 }) : count;
    return { topic: counted, objects: toPage(rows, page.limit), related };
  }

  /**
   * Casts `kind` for the actor on a live or disputed object. One vote per voter: the same vote
   * again changes nothing (`changed: false`); the other kind moves the vote. A voter's first
   * verification of a live finding, request or artifact may extend its expiry (lifetimes.ts).
   */
  async vote(id: string, kind: VoteKind, body: unknown, actor: Actor): Promise<{ object: StoredObject; changed: boolean }> {
    const input: ContradictBody = parseOrThrow(kind === 'contradict' ? ContradictBody : VoteBody, body ?? {});
    const target = await this.#visible(id, actor, 'writer');
    const live = this.live(target);
    const state = stateOf(target, live);
    if (state !== 'live' && state !== 'disputed') {
      throw notFound(`Object ${id} is ${state}; votes go to live or disputed objects only.`);
    }
    if (actor.author && target.author?.id === actor.author.id) {
      throw new DomainError('forbidden', 'Authors cannot vote on their own objects.');
    }
    const correctionId = input.correction_id ?? null;
    if (correctionId !== null) {
      // A correction is of the object's own scope: one elsewhere is answered as unknown.
      const named = await this.deps.store.objects.get(correctionId, live);
      const refusal = correctionRefusal(target, correctionId, named?.space === target.space ? named : null, live);
      if (refusal) throw refusal;
    }
    // The vote, the counts and the author's standing move together, or not at all.
    const outcome = await this.deps.store.withTransaction(lockScope(target), async (tx) => {
      // Asked inside the vote's transaction: a quarantine that lands meanwhile waits for it, then takes it back.
      if (actor.author && (await tx.moderation.isQuarantined(actor.author.id, actor.author.domain))) return 'quarantined' as const;
      const cast = await tx.votes.cast(
        { objectId: id, voterId: actor.voterId, kind, note: input.note ?? null, evidenceUrl: input.evidence_url ?? null, correctionId, voterDomain: actor.author?.domain ?? null },
        live,
      );
      if (!cast?.changed) return cast;
      let object = cast.object;
      // A first verification of what is (still) live keeps it findable for longer.
      const moved = cast.firstVerification && stateOf(object, live) === 'live' ? extendedExpiry(object, live.now, this.deps.limits) : null;
      if (moved !== null) object = (await tx.objects.setExpiry(id, moved, live))!;
      if (target.author && (await rederiveReputation(tx, target.author.id, this.deps.limits.reputation, this.deps.clock.now()))) object = (await tx.objects.get(id, live))!;
      await tx.events.append(eventOf('updated', object, live.now));
      return { changed: true, object };
    });
    if (outcome === 'quarantined') throw quarantinedError();
    if (!outcome) throw notFound(`No object ${id}.`);
    return { changed: outcome.changed, object: outcome.object };
  }


  /** The author withdraws their own live or disputed object; final. */
  async withdraw(id: string, actor: Actor): Promise<StoredObject> {
    if (!actor.author) {
      throw new DomainError('unauthorized', 'Only the signed author of an object can withdraw it; sign the request (HTTP Message Signatures).');
    }
    const target = await this.#visible(id, actor, 'writer');
    const live = this.live(target);
    if (target.author?.id !== actor.author.id) throw new DomainError('forbidden', 'Only the author of an object can withdraw it.');
    const state = stateOf(target, live);
    if (state !== 'live' && state !== 'disputed') throw notFound(`Object ${id} is ${state}; only live or disputed objects can be withdrawn.`);
    await refuseQuarantined(this.deps.store, actor);
    return this.deps.store.withTransaction(lockScope(target), async (tx) => {
      const o = (await tx.objects.setWithdrawn(id, live))!;
      await tx.events.append(eventOf('updated', o, live.now));
      return o;
    });
  }

  /** Moderation: hide shows `hidden` over any state; unhide returns the object to the state it would have. */
  async setHidden(id: string, hidden: boolean): Promise<StoredObject> {
    const live = this.live();
    const found = await this.deps.store.objects.get(id, live);
    if (!found) throw notFound(`No object ${id}.`);
    const o = await this.deps.store.withTransaction(lockScope(found), async (tx) => {
      const before = await tx.objects.get(id, live);
      if (!before) return null;
      if (before.hidden === hidden) return before;
      const after = (await tx.objects.setHidden(id, hidden, live))!;
      await tx.events.append(eventOf('updated', after, live.now));
      await tx.moderation.log({ action: hidden ? 'hide' : 'unhide', target: id, reason: null, affected: 1, at: live.now });
      return after;
    });
    if (!o) throw notFound(`No object ${id}.`);
    return o;
  }

  async #repliesOf(object: StoredObject, page: Page): Promise<PageResult<StoredObject>> {
    if (wordsWithheld(stateOf(object, this.live()))) return noPage();
    const rows = await this.deps.store.objects.list({
      live: this.live(object),
      parentId: object.id,
      ...(page.cursor !== undefined ? { before: page.cursor } : {}),
      limit: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }

  /** Runs an expiry computation, collecting its validation issues with the others. */
  #expiry(compute: () => number, issues: FieldIssue[]): number | undefined {
    try {
      return compute();
    } catch (e) {
      if (e instanceof DomainError && e.errors) {
        issues.push(...e.errors);
        return undefined;
      }
      throw e;
    }
  }

  async #insert(
    o: {
      type: StoredObject['type'];
      title: string | undefined;
      content: string;
      topics: string[];
      sourceUrl: string | null;
      parentId: string | null;
      expiresAt: number;
      space: string | null;
    },
    actor: Actor,
    live: LiveCriteria,
    supersedes?: string,
  ): Promise<Published> {
    const author = actor.author;
    const row = {
      id: this.deps.ids.next(),
      type: o.type,
      content: o.content,
      topics: o.topics,
      sourceUrl: o.sourceUrl,
      parentId: o.parentId,
      author,
      createdAt: live.now,
      expiresAt: o.expiresAt,
      space: o.space,
      ...derivedFields({ ...o, author }),
    };
    await refuseQuarantined(this.deps.store, actor);
    if (supersedes !== undefined) return publishSuperseding(this.deps, row, supersedes, actor, live);
    const vector = (await this.deps.vectors?.vectorOf(row)) ?? null;
    // The object and its `created` event commit together, or neither does.
    return this.deps.store.publish(row, live, eventOf('created', row, live.now), vector);
  }
}
