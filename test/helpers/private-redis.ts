/**
 * A redis-server of the test's own, on a free loopback port and without persistence, that a
 * test may kill and start again: never the machine's own Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';
import { setTimeout as sleep } from 'node:timers/promises';

async function answers(port: number): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export class PrivateRedis {
  #child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (empty: nothing is saved) and waits until it answers. */
  async start(): Promise<void> {
    this.#child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await answers(this.port)) return;
      await sleep(50);
    }
    throw new Error(`redis-server on ${this.port} did not answer`);
  }

  /** Kills the server at once (SIGKILL), as a crash would, and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.#child = null;
  }
}
