/** Field-level schema builders shared by the resource schemas. Plain zod: no framework. */
import { z } from 'zod';
import { codePoints } from '../domain/text.js';
import { ULID_PATTERN } from '../domain/ulid.js';
import { normalizeFilterTopic } from '../domain/topics.js';
import { SPEC_LIMITS } from '../domain/limits.js';

/** A string whose length in NFC code points lies in [min, max] (zod's own max counts UTF-16 units). */
export const text = (min: number, max: number, description?: string) =>
  z
    .string()
    .superRefine((s, ctx) => {
      // U+0000 carries no meaning in text, and PostgreSQL cannot store it: refused on every store.
      if (s.includes('\u0000')) ctx.addIssue({ code: 'custom', message: 'must not contain the NUL character (U+0000)' });
      const n = codePoints(s);
      if (n < min) ctx.addIssue({ code: 'custom', message: min === 1 ? 'must not be empty' : `must be at least ${min} characters` });
      else if (n > max) ctx.addIssue({ code: 'custom', message: `must be at most ${max} characters` });
    })
    .meta({ minLength: min, maxLength: max, ...(description ? { description } : {}) });

export const ulid = z.string().regex(ULID_PATTERN, 'must be a 26-character ULID').meta({ pattern: ULID_PATTERN.source });

/** The URL when `s` is an absolute http(s) URL, else null (no javascript:, data:, relative links). */
export function parseHttpUrl(s: string): URL | null {
  if (!URL.canParse(s)) return null;
  const u = new URL(s);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
}

/** An absolute http(s) URL of at most `max` characters. */
export const httpUrl = (max: number) =>
  text(1, max).superRefine((s, ctx) => {
    if (!parseHttpUrl(s)) ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
  });

/** A query-string integer in [min, max]: digits only, no sign, no fraction. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ type: 'integer', minimum: min, maximum: max });

export const Timestamp = z.string().meta({ format: 'date-time', example: '2026-11-22T01:40:00.000Z' });

const { min: SMIN, max: SMAX } = SPEC_LIMITS.topicInFilter;

/** A slug as topics have them, normalised the same way; `what` names it in the refusal and the description. */
export const slugField = (what: string, description: string) =>
  z
    .string()
    .transform((s, ctx) => {
      const slug = normalizeFilterTopic(s, SMIN, SMAX);
      if (slug === null) {
        ctx.addIssue({ code: 'custom', message: `must be ${what} of ${SMIN} to ${SMAX} characters` });
        return z.NEVER;
      }
      return slug;
    })
    .meta({ type: 'string', minLength: SMIN, maxLength: SMAX, description });

/** A space slug: the rules of topic slugs, normalised the same way. */
export const spaceSlug = slugField('a slug', 'space slug; normalised like topic slugs (letters, digits and hyphens)');
