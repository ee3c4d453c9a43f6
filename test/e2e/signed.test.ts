/**
 * Signing against a real `serve` over sockets: the board's own `keygen` / `request` commands,
 * and what /instructions tells agents to run: the served sign.mjs with plain node, outside this
 * repository, and the Python recipe.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer } from '../helpers/cli.js';

const cli = runCli;

describe('agentboard keygen and request', () => {
  let dir: string;
  let server: ChildProcess;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentboard-signed-'));
    ({ child: server, url } = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'board.db')}` }));
  });
  afterAll(() => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes a private key file readable only by its owner and prints the keyid', async () => {
    const file = join(dir, 'key.json');
    const r = await cli(['keygen', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[\w-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), d: expect.any(String) });
    expect((await cli(['keygen', file])).code).toBe(1);
  });

  it('registers the key and publishes as its author', async () => {
    const file = join(dir, 'agent.json');
    const keyid = (await cli(['keygen', file])).stdout.trim();
    const registered = await cli(['request', 'POST', '/keys', '--key', file, '--base', url]);
    expect(registered.code, registered.stderr).toBe(0);
    expect(registered.stderr).toMatch(/^201 /);
    expect(JSON.parse(registered.stdout)).toMatchObject({ keyid, trust_level: 'signed' });
    const published = await cli(['request', 'POST', '/findings', '--key', file, '--base', url, '--data', '{"content":"Signed from the command line","topics":["cli"]}']);
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout).object.author).toEqual({ id: keyid, trust_level: 'signed', domain: null });
    const id = JSON.parse(published.stdout).object.id;
    const withdrawn = await cli(['request', 'DELETE', `/p/${id}`, '--key', file, '--base', url]);
    expect(withdrawn.code, withdrawn.stdout).toBe(0);
    expect(JSON.parse(withdrawn.stdout).object.state).toBe('withdrawn');
  });

  it('exits 1 and prints the problem when the board refuses', async () => {
    const file = join(dir, 'unregistered.json');
    await cli(['keygen', file]);
    const r = await cli(['request', 'POST', '/findings', '--key', file, '--base', url, '--data', '{"content":"x","topics":["cli"]}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^401 /);
    expect(JSON.parse(r.stdout).type).toMatch(/\/problems\/unknown-key$/);
  });
});

describe('what /instructions tells agents to run', () => {
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let instructions: string;
  beforeAll(async () => {
    // A folder with no node_modules above it: the served script must stand alone.
    dir = mkdtempSync(join(tmpdir(), 'agentboard-agent-'));
    ({ child: server, url } = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, BASE_URL: '' }));
    instructions = await (await fetch(`${url}/instructions`)).text();
  });
  afterAll(() => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(instructions)![1]!;

  it('names no package or command the project does not ship', () => {
    expect(instructions).not.toMatch(/\bnpx\b|npm (install|i) |pip install|from 'agentboard/);
  });

  it('the served sign.mjs, run with plain node as written, registers a key and publishes signed', async () => {
    const res = await fetch(`${url}/sign.mjs`);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    writeFileSync(join(dir, 'sign.mjs'), await res.text());
    // The shell block of the instructions, as written, with `curl -sO` already done above.
    const script = block('sh').replace(/^curl -sO .*$/m, '');
    const r = spawnSync('sh', ['-e', '-c', script], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(join(dir, 'my-key.json')).mode & 0o777).toBe(0o600);
    const keyid = /^[\w-]{43}$/m.exec(r.stdout)![0];
    expect(r.stderr).toMatch(/^201 Created \(signed as/m);
    const finding = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{\n  "object"')));
    expect(finding.object.author).toEqual({ id: keyid, trust_level: 'signed', domain: null });
  });

  it('the Python recipe, run as written, registers a key and publishes signed', () => {
    // .ci/run installs Debian's python3-cryptography when no interpreter here has the package.
    const python = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', 'import cryptography']).status === 0);
    if (!python) throw new Error('this test needs python3 with the cryptography package (apt-get install python3-cryptography)');
    writeFileSync(join(dir, 'recipe.py'), block('python'));
    const out = execFileSync(python, [join(dir, 'recipe.py')], { encoding: 'utf8' }).trim().split('\n');
    expect(out[0]).toMatch(/^[\w-]{43}$/);
    expect(out[1]).toBe(`{'id': '${out[0]}', 'trust_level': 'signed', 'domain': None}`);
  });
});
