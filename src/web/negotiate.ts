/** Content negotiation: an HTML page when the Accept header lists text/html, JSON otherwise. */
export function wantsHtml(accept: string | undefined | null): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .map((part) => part.trim().split(';'))
    .some(([type, ...params]) => type?.trim().toLowerCase() === 'text/html' && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)));
}
