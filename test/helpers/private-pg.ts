/**
 * A PostgreSQL cluster of the test's own (pg_createcluster, trust auth, a free port), which a
 * test may stop, start and restart: never the machine's own server. Dropped at the end.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { freePort } from './ports.js';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why a private cluster cannot be made here, or null. */
export async function privatePgUnavailable(): Promise<string | null> {
  if (!existsSync('/usr/bin/pg_createcluster')) return 'pg_createcluster is not installed (Debian postgresql-common)';
  if (!existsSync('/usr/lib/postgresql') || readdirSync('/usr/lib/postgresql').length === 0) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  return null;
}

export class PrivatePg {
  private constructor(
    readonly version: string,
    readonly name: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PrivatePg> {
    const version = readdirSync('/usr/lib/postgresql').sort().at(-1)!;
    const pgc = new PrivatePg(version, `abfault${randomBytes(4).toString('hex')}`, await freePort());
    await run('pg_createcluster', [version, pgc.name, '-p', String(pgc.port), '--', '--auth=trust']);
    await pgc.start();
    return pgc;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  #ctl(action: 'start' | 'stop' | 'restart') {
    return run('pg_ctlcluster', ['--skip-systemctl-redirect', this.version, this.name, action, ...(action === 'start' ? [] : ['-m', 'fast'])]);
  }

  start = () => this.#ctl('start');
  stop = () => this.#ctl('stop');
  restart = () => this.#ctl('restart');

  async drop(): Promise<void> {
    await run('pg_dropcluster', ['--stop', this.version, this.name]).catch(() => undefined);
  }
}
