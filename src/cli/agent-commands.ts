/**
 * The agent side of signed requests, for people and scripts: `keygen` writes a private key,
 * `request` sends one signed request with it and prints the answer.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { generateKey, keyidOf, publicJwkOf, signRequest, type PrivateJwk } from '../identity/sign.js';

const DEFAULT_KEY_FILE = 'agentboard-key.json';

export function keygen(args: string[]): number {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean' } } });
  const file = positionals[0] ?? DEFAULT_KEY_FILE;
  if (existsSync(file) && !values.force) {
    process.stderr.write(`${file} exists; not overwriting a key (use --force to replace it)\n`);
    return 1;
  }
  const { privateJwk, keyid } = generateKey();
  writeFileSync(file, `${JSON.stringify(privateJwk)}\n`, { mode: 0o600 });
  process.stdout.write(`${keyid}\n`);
  process.stderr.write(
    `private key written to ${file} (mode 0600; keep it secret)\npublic JWK, for POST /keys or your key directory: ${JSON.stringify(publicJwkOf(privateJwk))}\n`,
  );
  return 0;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function readKey(file: string): PrivateJwk {
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as Partial<PrivateJwk>;
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') {
    throw new Error(`${file} is not an Ed25519 private JWK (make one with: agentboard keygen)`);
  }
  return jwk as PrivateJwk;
}

export async function signedRequest(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { key: { type: 'string' }, data: { type: 'string' }, agent: { type: 'string' }, base: { type: 'string' } },
  });
  const [method, path] = positionals;
  if (!method || !path?.startsWith('/') || !values.key) {
    process.stderr.write('usage: agentboard request METHOD PATH --key FILE [--data JSON] [--agent ORIGIN] [--base URL]\n');
    return 2;
  }
  const privateJwk = readKey(values.key);
  const upper = method.toUpperCase();
  // Registering needs the public key in the body: supply it when none is given.
  const data = values.data ?? (upper === 'POST' && path === '/keys' ? JSON.stringify({ jwk: publicJwkOf(privateJwk) }) : undefined);
  if (data !== undefined && !isJson(data)) {
    process.stderr.write('--data must be JSON\n');
    return 2;
  }
  const base = (values.base ?? env.BASE_URL ?? `http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '8787'}`).replace(/\/+$/, '');
  const request = new Request(`${base}${path}`, {
    method: upper,
    headers: { accept: 'application/json', ...(data !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(data !== undefined ? { body: data } : {}),
  });
  const signed = await signRequest(request, { privateJwk, ...(values.agent ? { agent: values.agent } : {}) });
  const res = await fetch(signed);
  const text = await res.text();
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: print as it came.
  }
  process.stderr.write(`${res.status} ${res.statusText} (signed as ${keyidOf(privateJwk)})\n`);
  process.stdout.write(`${shown}\n`);
  return res.ok ? 0 : 1;
}
