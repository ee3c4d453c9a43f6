/**
 * The objects table as both SQL stores lay it out: a new object's values to bind, and a read
 * row's mapping back. Only topics (JSON text or an array) and flags (0/1 or booleans) differ.
 */
import type { ObjectType, StoredObject, TrustLevel } from '../domain/model.js';
import type { NewObject } from '../ports/object-store.js';

/** A read object row, but for its topics; `Flag` is how the engine returns a boolean. */
export interface ObjectColumns<Flag> {
  seq: number;
  id: string;
  type: string;
  title: string;
  content: string;
  source_url: string | null;
  parent_id: string | null;
  author_id: string | null;
  author_trust: string | null;
  author_domain: string | null;
  created_at: number;
  expires_at: number;
  last_verified_at: number | null;
  verification_count: number;
  contradiction_count: number;
  hidden: Flag;
  withdrawn: Flag;
  injection: Flag;
  reply_count: number;
}

export function toStoredObject<Flag>(row: ObjectColumns<Flag>, topics: string[], flag: (v: Flag) => boolean): StoredObject {
  return {
    id: row.id,
    type: row.type as ObjectType,
    title: row.title,
    content: row.content,
    topics,
    sourceUrl: row.source_url,
    parentId: row.parent_id,
    author: row.author_id ? { id: row.author_id, trustLevel: row.author_trust as TrustLevel, domain: row.author_domain } : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastVerifiedAt: row.last_verified_at,
    verificationCount: row.verification_count,
    contradictionCount: row.contradiction_count,
    replyCount: row.reply_count,
    hidden: flag(row.hidden),
    withdrawn: flag(row.withdrawn),
    injectionSuspected: flag(row.injection),
  };
}

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
