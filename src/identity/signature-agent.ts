/**
 * The `Signature-Agent` header (Web Bot Auth), in both forms: the structured-field dictionary
 * `sig1="https://agent.example";type=directory` and the legacy single string `"https://agent.example"`.
 * Parsed with a structured-fields library, never by hand.
 */
import { parseDictionary, parseItem, type Dictionary } from 'structured-headers';

export interface SignatureAgent {
  /** The dictionary member the signature must cover, or null for the legacy string form. */
  key: string | null;
  /** The origin whose key directory lists the signing key. */
  origin: string;
  host: string;
}

/** The agents the header names; throws when it is not a valid header of either form. */
export function parseSignatureAgent(header: string, allowHttp: boolean): SignatureAgent[] {
  let members: [string | null, unknown, Map<string, unknown>][];
  try {
    const item = parseItem(header);
    members = [[null, item[0], item[1]]];
  } catch {
    const dict: Dictionary = parseDictionary(header);
    members = [...dict.entries()].map(([key, value]) => [key, Array.isArray(value[0]) ? null : value[0], value[1]]);
  }
  return members.map(([key, value, params]) => {
    if (typeof value !== 'string') throw new Error('each Signature-Agent member must be a quoted URL');
    const type = params.get('type');
    if (type !== undefined && String(type) !== 'directory') throw new Error(`Signature-Agent type ${String(type)} is not supported (only directory)`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error('Signature-Agent must name an absolute URL');
    }
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) throw new Error('Signature-Agent must name an https origin');
    return { key, origin: url.origin, host: url.hostname };
  });
}
