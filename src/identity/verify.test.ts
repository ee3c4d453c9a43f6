import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import type { Ed25519PublicJwk } from '../domain/jwk.js';
import { publicKeyOf, thumbprint } from './jwk.js';
import { generateKey, publicJwkOf, signRequest, type PrivateJwk } from './agent-sign.mjs';
import { verifySignedRequest, type IncomingSigned, type KeySource } from './verify.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const opts = { nowSeconds: NOW / 1000, skewSeconds: 60, allowHttpAgents: false, directoryError: () => null };

async function incoming(r: Request): Promise<IncomingSigned> {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => (headers[k] = v));
  return { method: r.method, url: r.url, headers, body: new Uint8Array(await r.arrayBuffer()) };
}

const keysOf = (registered: PrivateJwk[], directories: Record<string, PrivateJwk[]> = {}): KeySource => ({
  registered: async (keyid) => registered.map(publicJwkOf).find((k) => thumbprint(k as Ed25519PublicJwk) === keyid) as Ed25519PublicJwk | undefined ?? null,
  directory: async (origin) => {
    const list = directories[origin];
    if (!list) throw new Error(`no directory at ${origin}`);
    return list.map(publicJwkOf) as Ed25519PublicJwk[];
  },
});

const publish = (body = '{"content":"hello","topics":["x"]}') =>
  new Request('https://board.example/findings', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

async function rejection(p: Promise<unknown>): Promise<{ code: string; detail: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, detail: err.detail };
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('verifySignedRequest', () => {
  const { privateJwk, keyid } = generateKey();

  it('accepts a request signed by a registered key, with its digest', async () => {
    const signed = await signRequest(publish(), { privateJwk, now: NOW });
    expect(signed.headers.get('signature-input')).toMatch(/^sig1=\("@method" "@authority" "@path" "content-digest"\);created=\d+;expires=\d+;keyid="[\w-]{43}";alg="ed25519";nonce="[\w-]+";tag="web-bot-auth"$/);
    const v = await verifySignedRequest(await incoming(signed), keysOf([privateJwk]), opts);
    expect(v).toMatchObject({ keyid, trustLevel: 'signed', domain: null });
  });

  it('refuses a tampered body, path, method, or a digest recomputed for a new body', async () => {
    const signed = await incoming(await signRequest(publish(), { privateJwk, now: NOW }));
    const keys = keysOf([privateJwk]);
    expect(await rejection(verifySignedRequest({ ...signed, body: new TextEncoder().encode('{"content":"evil","topics":["x"]}') }, keys, opts))).toMatchObject({
      code: 'signature-invalid',
      detail: expect.stringMatching(/Content-Digest/),
    });
    expect((await rejection(verifySignedRequest({ ...signed, url: 'https://board.example/requests' }, keys, opts))).code).toBe('signature-invalid');
    expect((await rejection(verifySignedRequest({ ...signed, method: 'PUT' }, keys, opts))).code).toBe('signature-invalid');
    const evil = new TextEncoder().encode('{"content":"evil","topics":["x"]}');
    const { createHash } = await import('node:crypto');
    const forged = { ...signed, body: evil, headers: { ...signed.headers, 'content-digest': `sha-256=:${createHash('sha256').update(evil).digest('base64')}:` } };
    expect(await rejection(verifySignedRequest(forged, keys, opts))).toMatchObject({ code: 'signature-invalid', detail: expect.stringMatching(/does not match the request/) });
  });

  it('refuses expired signatures and ones created in the future, with 60 s of skew', async () => {
    const keys = keysOf([privateJwk]);
    const old = await incoming(await signRequest(publish(), { privateJwk, now: NOW - 400_000, expiresIn: 300 }));
    expect(await rejection(verifySignedRequest(old, keys, opts))).toMatchObject({ code: 'signature-expired', detail: expect.stringMatching(/expired/) });
    const future = await incoming(await signRequest(publish(), { privateJwk, now: NOW + 120_000 }));
    expect(await rejection(verifySignedRequest(future, keys, opts))).toMatchObject({ code: 'signature-expired', detail: expect.stringMatching(/future/) });
    const slightlyAhead = await incoming(await signRequest(publish(), { privateJwk, now: NOW + 30_000 }));
    await expect(verifySignedRequest(slightlyAhead, keys, opts)).resolves.toMatchObject({ keyid });
  });

  it('refuses an unknown key, and accepts a key the request offers for itself', async () => {
    const stranger = generateKey();
    const signed = await incoming(await signRequest(publish(), { privateJwk: stranger.privateJwk, now: NOW }));
    expect((await rejection(verifySignedRequest(signed, keysOf([privateJwk]), opts))).code).toBe('unknown-key');
    const offering: KeySource = { ...keysOf([]), offered: (id) => (id === stranger.keyid ? (publicJwkOf(stranger.privateJwk) as Ed25519PublicJwk) : null) };
    await expect(verifySignedRequest(signed, offering, opts)).resolves.toMatchObject({ keyid: stranger.keyid, trustLevel: 'signed' });
  });

  it('requires the web-bot-auth tag and the covered components', async () => {
    const keys = keysOf([privateJwk]);
    const signed = await incoming(await signRequest(publish(), { privateJwk, now: NOW }));
    const untagged = { ...signed, headers: { ...signed.headers, 'signature-input': signed.headers['signature-input']!.replace('tag="web-bot-auth"', 'tag="other"') } };
    expect(await rejection(verifySignedRequest(untagged, keys, opts))).toMatchObject({ code: 'signature-invalid', detail: expect.stringMatching(/tag="web-bot-auth"/) });
    const noPath = { ...signed, headers: { ...signed.headers, 'signature-input': signed.headers['signature-input']!.replace(' "@path"', '') } };
    expect(await rejection(verifySignedRequest(noPath, keys, opts))).toMatchObject({ code: 'signature-invalid', detail: expect.stringMatching(/"@path"/) });
    const garbage = { ...signed, headers: { ...signed.headers, signature: 'not a dictionary((' } };
    expect((await rejection(verifySignedRequest(garbage, keys, opts))).code).toBe('signature-invalid');
  });

  it('checks Signature-Agent against the named directory', async () => {
    const agent = 'https://agent.example';
    const signed = await incoming(await signRequest(publish(), { privateJwk, agent, now: NOW }));
    expect(signed.headers['signature-agent']).toBe('sig1="https://agent.example";type=directory');
    await expect(verifySignedRequest(signed, keysOf([], { [agent]: [privateJwk] }), opts)).resolves.toMatchObject({ trustLevel: 'domain-verified', domain: 'agent.example' });
    expect(await rejection(verifySignedRequest(signed, keysOf([], { [agent]: [generateKey().privateJwk] }), opts))).toMatchObject({
      code: 'unknown-key',
      detail: expect.stringMatching(/does not list/),
    });
    // A Signature-Agent the signature does not cover cannot vouch for anything.
    const swapped = { ...signed, headers: { ...signed.headers, 'signature-agent': '"https://other.example"' } };
    expect((await rejection(verifySignedRequest(swapped, keysOf([], { 'https://other.example': [privateJwk] }), opts))).code).toBe('signature-invalid');
    const http = { ...signed, headers: { ...signed.headers, 'signature-agent': 'sig1="http://agent.example";type=directory' } };
    expect(await rejection(verifySignedRequest(http, keysOf([]), opts))).toMatchObject({ code: 'signature-invalid', detail: expect.stringMatching(/https/) });
  });
});

describe('Signature-Agent in the legacy string form', () => {
  it('is accepted when covered as "signature-agent"', async () => {
    const { privateJwk, keyid } = generateKey();
    const { createPrivateKey } = await import('node:crypto');
    const created = new Date(NOW);
    const signedMessage = await httpbis.signMessage(
      {
        key: createSigner(createPrivateKey({ key: { ...privateJwk }, format: 'jwk' }), 'ed25519', keyid),
        name: 'sig1',
        fields: ['@method', '@authority', '@path', 'signature-agent'],
        params: ['created', 'expires', 'keyid', 'alg', 'tag'],
        paramValues: { created, expires: new Date(NOW + 60_000), tag: 'web-bot-auth' },
      },
      { method: 'GET', url: 'https://board.example/findings', headers: { 'signature-agent': '"https://agent.example"' } },
    );
    const v = await verifySignedRequest(
      {
        method: 'GET',
        url: 'https://board.example/findings',
        headers: Object.fromEntries(Object.entries(signedMessage.headers).map(([k, v]) => [k.toLowerCase(), String(v)])),
        body: new Uint8Array(0),
      },
      keysOf([], { 'https://agent.example': [privateJwk] }),
      opts,
    );
    expect(v).toMatchObject({ keyid, trustLevel: 'domain-verified', domain: 'agent.example' });
  });
});

describe('RFC 9421 test vectors', () => {
  // Appendix B.1.4 test key and B.2.6 "Signing a Request Using ed25519".
  const key: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
  const request = {
    method: 'POST',
    url: 'https://example.com/foo?param=Value&Pet=dog',
    headers: {
      host: 'example.com',
      date: 'Tue, 20 Apr 2021 02:07:55 GMT',
      'content-type': 'application/json',
      'content-digest': 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
      'content-length': '18',
      'signature-input': 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
      signature: 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
    },
  };
  const verifyWith = (headers: Record<string, string>) =>
    httpbis.verifyMessage(
      { keyLookup: async () => ({ id: 'test-key-ed25519', algs: ['ed25519'], verify: createVerifier(publicKeyOf(key), 'ed25519') }), tolerance: Number.MAX_SAFE_INTEGER },
      { ...request, headers },
    );

  it('verifies B.2.6 through the same signature base and Ed25519 check the board uses', async () => {
    expect(await verifyWith(request.headers)).toBe(true);
    expect(await verifyWith({ ...request.headers, 'content-type': 'text/plain' })).toBe(false);
  });

  it('still refuses B.2.6 as a board signature: it has no web-bot-auth tag', async () => {
    const r = await rejection(
      verifySignedRequest({ ...request, body: new TextEncoder().encode('{"hello": "world"}') }, { registered: async () => key, directory: async () => [] }, { ...opts, nowSeconds: 1618884473 }),
    );
    expect(r).toMatchObject({ code: 'signature-invalid', detail: expect.stringMatching(/tag/) });
  });
});
