/**
 * Topic slugs (docs/decisions.md): NFKD, strip combining marks, lowercase, every run outside
 * [a-z0-9] becomes one `-`, trim `-` at both ends.
 */
export function normalizeTopic(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Filter/path topics must be 2–40 characters before and after normalisation. */
export function normalizeFilterTopic(raw: string, min = 2, max = 40): string | null {
  const before = [...raw].length;
  if (before < min || before > max) return null;
  const slug = normalizeTopic(raw);
  return slug.length >= min && slug.length <= max ? slug : null;
}

/** The topic experience reports carry for a registry server: `io.github.acme/weather` → `io-github-acme-weather`. */
export const registryTopic = (registryName: string): string => normalizeTopic(registryName.replace(/[./]/g, '-'));
