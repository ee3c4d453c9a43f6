/**
 * The production path, as the Dockerfile takes it, without Docker (no engine runs here): the
 * production install (`npm ci --omit=dev`) into an empty folder, with the built dist/ and the
 * bundled model copied in; the Dockerfile's own CMD and HEALTHCHECK, read from it and run.
 * And `npm start`, which must pass SIGTERM on to the board. Both start Node with SERVE_NODE_FLAGS.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { readSse } from '../helpers/sse.js';
import { SERVE_NODE_FLAGS } from '../../src/cli/serve-flags.js';

const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** The JSON-array form of a Dockerfile instruction in the last stage. */
const instruction = (name: string): string[] => JSON.parse(new RegExp(`^${name} (?:--\\S+ )*(?:CMD )?(\\[.*\\])$`, 'm').exec(DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM ')))![1]!);
const runtimeEnv = Object.fromEntries([...DOCKERFILE.matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1]!.split(' ').map((kv) => kv.split('=') as [string, string])));

function waitForLine(child: ChildProcess, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${out}`)), ms);
    const onData = (d: Buffer) => {
      out += d;
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? m[0]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

/** The board's listening line, whole: its address and the Node flags it was started with. */
const LISTENING = /^(\{.*"msg":"agentboard listening"\})$/m;
const listening = (line: string) => JSON.parse(line) as { url: string; node_flags: string[] };

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('production install, as the Dockerfile does it', () => {
  let dir: string;
  let board: ChildProcess | undefined;
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: npm install (or npm run build) builds it');
    dir = mkdtempSync(join(tmpdir(), 'agentboard-prod-'));
    for (const f of ['package.json', 'package-lock.json', '.npmrc', 'scripts', 'dist', 'models']) cpSync(join(ROOT, f), join(dir, f), { recursive: true });
    // Asynchronously: the native build takes a minute or two, and the test worker must stay responsive.
    await promisify(execFile)('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, env: { ...process.env, npm_config_loglevel: 'error' }, maxBuffer: 64 * 1024 * 1024 });
  }, 400_000);
  afterAll(() => {
    board?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs no development package', () => {
    expect(existsSync(join(dir, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'better-sqlite3'))).toBe(true);
  });

  it('serves with the image CMD and ENV, passes the HEALTHCHECK, and stops on SIGTERM', async () => {
    const [cmd, ...args] = instruction('CMD');
    expect(cmd).toBe('node');
    const env = cleanEnv({ ...runtimeEnv, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'data', 'board.db')}`, REGISTRY_URL: 'off', LOG_LEVEL: 'info' });
    board = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const { url, node_flags: flags } = listening(await waitForLine(board, LISTENING, 30_000));
    expect(flags).toEqual([...SERVE_NODE_FLAGS]);
    const port = new URL(url).port;
    // The bundled model loads from the installed folder: hybrid search with no setting.
    const search = (await (await fetch(`${url}/search?q=anything`)).json()) as { degraded: string[] };
    expect(search.degraded).toEqual([]);
    // What agents fetch is the reviewed source file, byte for byte.
    expect(await (await fetch(`${url}/sign.mjs`)).text()).toBe(readFileSync(join(ROOT, 'src', 'identity', 'agent-sign.mjs'), 'utf8'));
    const [hcmd, ...hargs] = instruction('HEALTHCHECK');
    expect(hcmd).toBe('node');
    execFileSync(process.execPath, hargs, { env: { ...env, PORT: port } });
    const done = exited(board);
    board.kill('SIGTERM');
    expect(await done).toBe(0);
    // With the board gone, the same check fails.
    expect(() => execFileSync(process.execPath, hargs, { env: { ...env, PORT: port }, stdio: 'pipe' })).toThrow();
  }, 60_000);
});

describe('npm start', () => {
  it('passes SIGTERM on: the board drains (ending its event streams) and exits, nothing is left listening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-npm-start-'));
    try {
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        // A grace period longer than this test: an event stream left open would outlast it.
        env: cleanEnv({ PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, REGISTRY_URL: 'off', EMBEDDINGS: 'none', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '120000' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout!.on('data', (d) => (out += d));
      const { url, node_flags: flags } = listening(await waitForLine(npm, LISTENING, 30_000));
      // exec'd by the script, with the flags every launcher passes (serve-flags.ts).
      expect(flags).toEqual([...SERVE_NODE_FLAGS]);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const stream = readSse(await fetch(`${url}/events`));
      await stream.waitForComment((c) => c === 'agentboard events');
      const done = exited(npm);
      npm.kill('SIGTERM');
      await done;
      await new Promise((r) => setTimeout(r, 200));
      expect(out).toContain('"msg":"stopped"');
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
