/** A new object's column values as both SQL stores bind them (booleans and topics as each engine wants them). */
import type { NewObject } from '../ports/object-store.js';

export function objectParams(o: NewObject) {
  return {
    id: o.id,
    type: o.type,
    title: o.title,
    content: o.content,
    // Hyphens split into words, so `connection-pool` matches the query "connection pool".
    topicsText: o.topics.map((t) => t.replace(/-/g, ' ')).join(' '),
    sourceUrl: o.sourceUrl,
    parentId: o.parentId,
    authorId: o.author?.id ?? null,
    authorTrust: o.author?.trustLevel ?? null,
    authorDomain: o.author?.domain ?? null,
    createdAt: o.createdAt,
    expiresAt: o.expiresAt,
    lastVerifiedAt: o.lastVerifiedAt ?? null,
    verifications: o.verificationCount ?? 0,
    contradictions: o.contradictionCount ?? 0,
    dedupeKey: o.dedupeKey,
  };
}
