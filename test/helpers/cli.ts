/** The real CLI as a child process: a clean environment and a `serve` on an ephemeral port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export { ROOT };
export const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
/** A clean environment: the test runner's own variables (vitest sets BASE_URL=/) must not leak in. */
export const cleanEnv = (vars: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...vars });

/** Runs a CLI command to completion, asynchronously: servers it talks to may live in this process. */
export function runCli(args: string[], vars: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: cleanEnv(vars) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `serve` (or the node arguments given, e.g. a compose file's command) and waits for its address. */
export function startServer(vars: Record<string, string>, nodeArgs: string[] = [...CLI, 'serve']): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: cleanEnv({ PORT: '0', LOG_LEVEL: 'info', REGISTRY_URL: 'off', ...vars }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /"url":"(http:[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}


/** `migrate` once, then `count` instances of `serve` on the same settings, as behind one load balancer. */
export async function startInstances(env: Record<string, string>, count: number): Promise<Awaited<ReturnType<typeof startServer>>[]> {
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  return Promise.all(Array.from({ length: count }, () => startServer(env)));
}

/** The JSON log lines a server printed at error level or above (pino: 50 is error). */
export function loggedErrors(output: string): unknown[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number })
    .filter((l) => l.level >= 50);
}

export interface SuiteServer {
  dir: string;
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
}

/** A `serve` in a folder of its own for the enclosing suite: started before its tests, killed and removed after. */
export function serveForSuite(vars: (dir: string) => Record<string, string>): SuiteServer {
  const s = {} as SuiteServer;
  beforeAll(async () => {
    s.dir = mkdtempSync(join(tmpdir(), 'agentboard-e2e-'));
    Object.assign(s, await startServer(vars(s.dir)));
    s.port = Number(new URL(s.url).port);
  });
  afterAll(() => {
    s.child?.kill('SIGKILL');
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  });
  return s;
}
