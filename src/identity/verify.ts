/**
 * Verifying a signed request (docs/decisions.md, Identity and trust): RFC 9421 HTTP Message
 * Signatures with Ed25519, Web Bot Auth style. The board's rules are checked here — which
 * signature counts (`tag="web-bot-auth"`), the required components and parameters, times with
 * skew, `Content-Digest` (RFC 9530) against the body, where the key comes from — and the
 * signature base and the Ed25519 check are left to maintained libraries (http-message-signatures,
 * structured-headers, node:crypto). Every refusal is a DomainError with its own 401 problem.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { isInnerList, parseDictionary, serializeDictionary, type Dictionary, type InnerList } from 'structured-headers';
import { DomainError } from '../domain/errors.js';
import { SIGNATURE_TAG } from './agent-sign.mjs';
import type { Ed25519PublicJwk } from '../domain/jwk.js';
import { publicKeyOf, thumbprint } from './jwk.js';
import { parseSignatureAgent, type SignatureAgent } from './signature-agent.js';

const REQUIRED_COMPONENTS = ['@method', '@authority', '@path'];

export interface IncomingSigned {
  method: string;
  /** The URL as the client addressed it: the board's public origin, then path and query. */
  url: string;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface KeySource {
  /** A key registered with POST /keys. */
  registered(keyid: string): Promise<Ed25519PublicJwk | null>;
  /** The keys an agent's directory lists; throws DirectoryUnavailable when it cannot be read. */
  directory(origin: string): Promise<Ed25519PublicJwk[]>;
  /** A key the request itself offers (POST /keys registers the key that signs it). */
  offered?(keyid: string): Ed25519PublicJwk | null;
}

export interface VerifiedSignature {
  keyid: string;
  jwk: Ed25519PublicJwk;
  trustLevel: 'signed' | 'domain-verified';
  domain: string | null;
  /** The signature's nonce, when it has one: replays are refused while the signature is valid. */
  nonce: string | null;
  /** Epoch seconds, as the signer dated it. */
  created: number;
  /** Epoch seconds. */
  expires: number;
}

const invalid = (detail: string) => new DomainError('signature-invalid', detail);

export async function verifySignedRequest(
  req: IncomingSigned,
  keys: KeySource,
  o: { nowSeconds: number; skewSeconds: number; allowHttpAgents: boolean; directoryError: (err: unknown) => DomainError | null },
): Promise<VerifiedSignature> {
  const { label, input } = chooseSignature(req.headers);
  const params = input[1];
  const keyid = params.get('keyid');
  const alg = params.get('alg');
  const created = params.get('created');
  const expires = params.get('expires');
  if (typeof keyid !== 'string' || keyid === '') throw invalid('The signature has no keyid parameter (the RFC 7638 thumbprint of your public key).');
  if (alg !== 'ed25519') throw invalid('The signature must say alg="ed25519".');
  if (!Number.isInteger(created) || !Number.isInteger(expires)) throw invalid('The signature needs integer created and expires parameters.');
  if ((created as number) > o.nowSeconds + o.skewSeconds) throw new DomainError('signature-expired', 'The signature was created in the future; check your clock.');
  if ((expires as number) < o.nowSeconds - o.skewSeconds) throw new DomainError('signature-expired', 'The signature has expired; sign the request again.');
  if ((expires as number) <= (created as number)) throw invalid('The signature expires before it was created.');

  const covered = input[0].map(([name, itemParams]) => ({ name: String(name), key: itemParams.get('key') }));
  const missing = REQUIRED_COMPONENTS.filter((c) => !covered.some((x) => x.name === c && x.key === undefined));
  if (req.body.byteLength > 0 && !covered.some((x) => x.name === 'content-digest')) missing.push('content-digest');
  if (missing.length > 0) throw invalid(`The signature must cover ${missing.map((m) => `"${m}"`).join(', ')}.`);
  if (req.body.byteLength > 0) checkDigest(req.headers['content-digest'], req.body);

  const agent = signatureAgent(req.headers, covered, o.allowHttpAgents);
  const key = await resolveKey(keyid, agent, keys, o.directoryError);

  let ok: boolean | null;
  try {
    ok = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({ id: keyid, algs: ['ed25519'], verify: createVerifier(publicKeyOf(key), 'ed25519') }),
        // Times were checked above against the board's clock, with its skew.
        tolerance: Number.MAX_SAFE_INTEGER,
      },
      { method: req.method, url: req.url, headers: onlySignature(req.headers, label, input) },
    );
  } catch (err) {
    throw invalid(`The signature could not be checked: ${err instanceof Error ? err.message.slice(0, 200) : 'malformed'}.`);
  }
  if (ok !== true) {
    const authority = new URL(req.url).host;
    throw invalid(
      `The signature does not match the request (method, authority, path, digest or signed headers differ from what was signed). The board checked "@authority" as "${authority}" and "@path" as "${new URL(req.url).pathname}"; behind a proxy, the operator sets BASE_URL to the public address.`,
    );
  }
  const nonce = params.get('nonce');
  return {
    keyid,
    jwk: key,
    trustLevel: agent ? 'domain-verified' : 'signed',
    domain: agent?.host ?? null,
    nonce: typeof nonce === 'string' && nonce !== '' ? nonce : null,
    created: created as number,
    expires: expires as number,
  };
}

/** The signature tagged web-bot-auth (the first one, when several are). */
function chooseSignature(headers: Record<string, string>): { label: string; input: InnerList } {
  let inputs: Dictionary;
  let signatures: Dictionary;
  try {
    inputs = parseDictionary(headers['signature-input'] ?? '');
    signatures = parseDictionary(headers.signature ?? '');
  } catch {
    throw invalid('Signature-Input or Signature is not a valid structured-field dictionary.');
  }
  for (const [label, input] of inputs) {
    if (!isInnerList(input) || input[1].get('tag') !== SIGNATURE_TAG) continue;
    const value = signatures.get(label);
    if (!value) throw invalid(`Signature-Input names "${label}" but Signature has no value for it.`);
    // Checked before any key is looked up: a malformed signature never makes the board fetch a directory.
    if (isInnerList(value) || !(value[0] instanceof ArrayBuffer) || value[0].byteLength !== 64) {
      throw invalid(`Signature "${label}" must be a 64-byte Ed25519 signature as a byte sequence (:base64:).`);
    }
    return { label, input };
  }
  throw invalid(`No signature carries tag="${SIGNATURE_TAG}".`);
}

/** The headers with only the chosen signature, so the library checks exactly that one. */
function onlySignature(headers: Record<string, string>, label: string, input: InnerList): Record<string, string> {
  const signature = parseDictionary(headers.signature!).get(label)!;
  return {
    ...headers,
    'signature-input': serializeDictionary(new Map([[label, input]])),
    signature: serializeDictionary(new Map([[label, signature]])),
  };
}

/** RFC 9530: `sha-256=:base64:` must match the body's SHA-256. */
function checkDigest(header: string | undefined, body: Uint8Array): void {
  if (!header) throw invalid('A signed request with a body needs a Content-Digest header (sha-256).');
  let digests: Dictionary;
  try {
    digests = parseDictionary(header);
  } catch {
    throw invalid('Content-Digest is not a valid structured-field dictionary.');
  }
  const claimed = digests.get('sha-256');
  if (!claimed || isInnerList(claimed) || !(claimed[0] instanceof ArrayBuffer)) throw invalid('Content-Digest must carry a sha-256 byte sequence.');
  const actual = createHash('sha256').update(body).digest();
  const given = Buffer.from(claimed[0]);
  if (given.length !== actual.length || !timingSafeEqual(given, actual)) throw invalid('The body does not match its Content-Digest.');
}

/** The agent named by a covered Signature-Agent header, or null when there is none. */
function signatureAgent(headers: Record<string, string>, covered: { name: string; key: unknown }[], allowHttp: boolean): SignatureAgent | null {
  const header = headers['signature-agent'];
  if (header === undefined) return null;
  let agents: SignatureAgent[];
  try {
    agents = parseSignatureAgent(header, allowHttp);
  } catch (err) {
    throw invalid(`Signature-Agent is not usable: ${(err as Error).message}.`);
  }
  const agent = agents.find((a) => covered.some((c) => c.name === 'signature-agent' && (a.key === null ? c.key === undefined : c.key === a.key)));
  if (!agent) throw invalid('The signature must cover Signature-Agent ("signature-agent";key="…" for the dictionary form).');
  return agent;
}

async function resolveKey(keyid: string, agent: SignatureAgent | null, keys: KeySource, directoryError: (err: unknown) => DomainError | null): Promise<Ed25519PublicJwk> {
  if (agent) {
    let listed: Ed25519PublicJwk[];
    try {
      listed = await keys.directory(agent.origin);
    } catch (err) {
      throw directoryError(err) ?? err;
    }
    const key = listed.find((k) => thumbprint(k) === keyid);
    if (!key) throw new DomainError('unknown-key', `The key directory of ${agent.origin} does not list key ${keyid}.`);
    return key;
  }
  const key = (await keys.registered(keyid)) ?? keys.offered?.(keyid) ?? null;
  if (!key) throw new DomainError('unknown-key', `Key ${keyid} is not registered; register it with POST /keys, signed by that key.`);
  return key;
}
