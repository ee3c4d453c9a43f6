/**
 * What the board derives from what a writer gave: the title (trimmed, or made from the first
 * line of the content), the prompt-injection flag and the dedupe key. Publishing and importing
 * both come through here, so an imported object dedupes and flags exactly like a published one.
 */
import { SPEC_LIMITS } from './limits.js';
import { dedupeKey } from './dedupe.js';
import { looksLikePromptInjection } from './injection.js';
import type { AuthorRef, ObjectType } from './model.js';
import { deriveTitle } from './text.js';

export interface WrittenFields {
  type: ObjectType;
  title: string | null | undefined;
  content: string;
  topics: readonly string[];
  sourceUrl: string | null;
  parentId: string | null;
  author: AuthorRef | null;
  space?: string | null;
}

export function derivedFields(o: WrittenFields): { title: string; injectionSuspected: boolean; dedupeKey: string } {
  const title = o.title?.trim() ? o.title.trim() : deriveTitle(o.content, SPEC_LIMITS.title);
  return {
    title,
    injectionSuspected: looksLikePromptInjection(title, o.content),
    dedupeKey: dedupeKey({
      type: o.type,
      parentId: o.parentId,
      authorId: o.author?.id ?? null,
      title,
      content: o.content,
      topics: o.topics,
      sourceUrl: o.sourceUrl,
      space: o.space ?? null,
    }),
  };
}
