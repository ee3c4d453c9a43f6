/** `agentboard keygen` and `agentboard request` against a real `serve` over sockets. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
