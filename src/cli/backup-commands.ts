/** `backup FILE` and `restore FILE`: a consistent copy of a serving board, and that copy read into an empty database of either engine. */
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { buildBoard, openStore, prepareStore } from '../compose.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { createLogger } from '../log.js';
import { writeBackup, type BackupCounts } from '../service/transfer/backup.js';
import { ImportError } from '../service/transfer/ndjson-import.js';
import { RestoreError, restoreBackup } from '../service/transfer/restore.js';
import { bar, progressLine } from './progress.js';

const summary = (c: BackupCounts) => Object.entries(c).map(([what, n]) => `${n} ${what.replace(/_/g, ' ')}`).join(', ');

export async function backupCommand(config: Config, file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('usage: agentboard-server backup FILE\n');
    return 2;
  }
  const store = await openStore(config);
  // Written aside and renamed when whole: a failed backup never leaves a file under the name asked for.
  const partial = `${file}.partial`;
  try {
    await prepareStore(store, config);
    const out = createWriteStream(partial, { mode: 0o600 });
    const progress = progressLine('backup');
    const counts = await writeBackup(store, out, {
      clock: systemClock,
      limits: config.limits,
      baseUrl: config.baseUrl ?? `http://${config.host}:${config.port}`,
      onProgress: (what, n) => progress.update(`${n} ${what.replace(/_/g, ' ')}`),
    });
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    renameSync(partial, file);
    progress.done(`${summary(counts)} to ${file}`);
    return 0;
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    await store.close();
  }
}

export async function restoreCommand(config: Config, file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('usage: agentboard-server restore FILE\n');
    return 2;
  }
  const board = await buildBoard(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel));
  try {
    const progress = progressLine('restore');
    let counts: BackupCounts;
    try {
      counts = await restoreBackup(board.services.store, file, { now: board.services.clock.now(), limits: config.limits, onProgress: (what, n) => progress.update(`${n} ${what}`) });
    } catch (err) {
      if (err instanceof RestoreError || err instanceof ImportError) {
        progress.done(`failed: ${err.message}`);
        return 1;
      }
      throw err;
    }
    progress.done(summary(counts));
    if (board.worker) {
      const embedding = progressLine('embed');
      const total = await board.services.store.embeddings.size();
      const embedded = await board.worker.drain((n) => embedding.update(`${bar(total ? n / total : 1)} ${n}/${total}`));
      embedding.done(`${embedded} objects embedded`);
    }
    return 0;
  } finally {
    await board.close();
  }
}
