/**
 * What makes two objects identical (docs/decisions.md, Deduplication): same type, parent, author,
 * canonical title and content, set of topics and source_url, in the same space (or both in the
 * commons). The key is a hash of those.
 */
import { hash } from 'node:crypto';
import { canonicalText } from './text.js';

export interface DedupeFields {
  type: string;
  parentId: string | null;
  authorId: string | null;
  title: string;
  content: string;
  topics: readonly string[];
  sourceUrl: string | null;
  /** The object's space; null for the commons, whose keys stay what they were before spaces. */
  space?: string | null;
}

export function dedupeKey(f: DedupeFields): string {
  const parts = [
    f.type,
    f.parentId ?? '',
    f.authorId ?? '',
    canonicalText(f.title),
    canonicalText(f.content),
    [...new Set(f.topics)].sort(),
    f.sourceUrl ?? '',
    ...(f.space ? [f.space] : []),
  ];
  // One call (Node.js 20.12): a Hash object with update and digest costs three.
  return hash('sha256', JSON.stringify(parts), 'base64url');
}
