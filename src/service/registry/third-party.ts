/**
 * Text and links from third parties (the registry, MCP servers): control and bidi-override
 * characters out, length bounded, links only when they are absolute http(s) URLs.
 */
import { clipChars } from '../../domain/text.js';
import { parseHttpUrl } from '../../schemas/fields.js';

/** Control characters out, ends trimmed, at most `max` code points; null for non-strings and blanks. */
export function clip(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const cleaned = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  return cleaned === '' ? null : clipChars(cleaned, max);
}

/** An absolute http(s) URL of sane length, normalised, else null. */
export function webUrl(value: unknown): string | null {
  return typeof value === 'string' && value.length <= 2048 ? (parseHttpUrl(value)?.toString() ?? null) : null;
}
