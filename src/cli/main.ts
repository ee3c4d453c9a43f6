#!/usr/bin/env node
/**
 * The board's command line (`node dist/cli/main.js`, installed as `agentboard-server`).
 *   serve     migrate, then serve the board (what `npm start` runs)
 *   migrate   apply database migrations and exit
 *   import / export / backup / restore / sync-registry / keygen / request   (see USAGE)
 */
import { buildBoard, openStore, prepareStore, registryDeps } from '../compose.js';
import { systemClock } from '../clock.js';
import { VERDICT_LABELS } from '../domain/registry.js';
import { probeDue } from '../service/registry/probe-runner.js';
import { syncRegistry } from '../service/registry/sync.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { batchedStdout, createLogger } from '../log.js';
import { listen } from '../server.js';
import { exportNdjson } from '../service/transfer/ndjson-export.js';
import { ImportError, importNdjson } from '../service/transfer/ndjson-import.js';
import { main as agentCommand } from '../identity/agent-sign.mjs';
import { bar, progressLine } from './progress.js';
import { backupCommand, restoreCommand } from './backup-commands.js';
import { createReadStream, createWriteStream, statSync } from 'node:fs';

const USAGE = `usage: agentboard-server <command>     (from a clone: node dist/cli/main.js <command>)

commands:
  serve          apply migrations, then serve the board (PORT, HOST, DATABASE_URL, … from the environment)
  migrate        apply database migrations and exit
  import FILE    import objects from NDJSON (one object per line; all or nothing), then embed them
  export [--commons] [FILE]  export every object as NDJSON to FILE, or to standard output;
                 --commons: the public commons only, nothing of any space
  backup FILE    a consistent copy of everything the board holds (objects, votes, keys, registry records,
                 the voter key, the event cursor), taken while it serves
  restore FILE   read a backup into an empty database of either engine, then embed its objects
  sync-registry  sync the MCP registry (REGISTRY_URL), then probe every due server once and print a summary
  keygen [FILE]  make an Ed25519 key: the private JWK goes to FILE (default agentboard-key.json, mode 0600); prints the keyid
  request METHOD PATH|URL --key FILE [--data JSON] [--agent ORIGIN] [--base URL]
                 send a request signed with the key and print the answer; POST /keys without --data registers the key
                 (a PATH goes to --base, else BASE_URL, else this board's HOST and PORT); agents get the same
                 commands without this package: GET /sign.mjs, then node sign.mjs …
  help       show this text

Configuration comes from environment variables; see the README.`;

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, batchedStdout(config.logFlushMs));
  const board = await buildBoard(config, log);
  // The model loads before the first request, so search is hybrid from the start.
  await board.startBackground();
  const running = await listen(board, config, log);
  // node_flags: what Node was started with, so that an operator sees whether the launcher passed SERVE_NODE_FLAGS.
  log.info({ url: running.url, database: config.database.kind, vectors: board.services.store.capabilities.vectors, node_flags: process.execArgv }, 'agentboard listening');
  // Logs are JSON lines on stdout; a person at a terminal also gets a plain line.
  if (process.stderr.isTTY) process.stderr.write(`agentboard listening on ${running.url}\n`);
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'signal received');
    running.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

async function migrate(config: Config): Promise<void> {
  const store = await openStore(config);
  try {
    const restated = await prepareStore(store, config);
    process.stdout.write(`migrations applied (${config.database.kind})${restated ? `; standing re-derived for ${restated} objects` : ''}\n`);
  } finally {
    await store.close();
  }
}

/** Batch commands print their own progress; per-request info lines would only be noise. */
const toolLogger = (config: Config) => createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);

async function importFile(config: Config, file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('usage: agentboard import FILE\n');
    return 2;
  }
  const size = statSync(file).size;
  const log = toolLogger(config);
  const board = await buildBoard(config, log);
  try {
    const input = createReadStream(file);
    const progress = progressLine('import');
    const started = Date.now();
    let imported: number;
    try {
      imported = await importNdjson(board.services.store, input, {
        now: board.services.clock.now(),
        limits: config.limits,
        onProgress: (lines) => progress.update(`${bar(size ? input.bytesRead / size : 1)} ${lines} lines`),
      });
    } catch (err) {
      if (err instanceof ImportError) {
        progress.done(`failed, nothing imported: ${err.message}`);
        return 1;
      }
      throw err;
    }
    progress.done(`${imported} objects in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (board.worker) {
      const embedding = progressLine('embed');
      const total = await board.services.store.embeddings.size();
      const embedded = await board.worker.drain((n) => embedding.update(`${bar(total ? n / total : 1)} ${n}/${total}`));
      const left = await board.services.store.embeddings.size();
      embedding.done(`${embedded} objects embedded${left > 0 ? `, ${left} left for the server's worker (the embedder failed; see the log)` : ''}`);
    } else {
      const status = board.services.searcher.semanticStatus();
      process.stderr.write(`embed skipped: ${status.available ? 'no embedder' : status.reason}\n`);
    }
    return 0;
  } finally {
    await board.close();
  }
}

async function exportFile(config: Config, args: string[]): Promise<number> {
  const commonsOnly = args.includes('--commons');
  const file = args.find((a) => a !== '--commons');
  const board = await buildBoard(config, toolLogger(config));
  try {
    const out = file ? createWriteStream(file) : process.stdout;
    const progress = progressLine('export');
    const count = await exportNdjson(board.services.store, out, {
      clock: board.services.clock,
      limits: config.limits,
      baseUrl: config.baseUrl ?? `http://${config.host}:${config.port}`,
      commonsOnly,
      onProgress: (n) => progress.update(`${n} objects`),
    });
    if (file) await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())));
    progress.done(`${count} objects${file ? ` to ${file}` : ''}`);
    return 0;
  } finally {
    await board.close();
  }
}

async function syncRegistryCommand(config: Config): Promise<number> {
  const store = await openStore(config);
  try {
    await prepareStore(store, config);
    const deps = registryDeps(config, store, systemClock, toolLogger(config));
    if (!deps) {
      process.stderr.write('REGISTRY_URL=off: registry sync and probes are disabled\n');
      return 0;
    }
    const syncing = progressLine('sync');
    let sync;
    try {
      sync = await syncRegistry(deps.sync, { onPage: (s) => syncing.update(`page ${s.pages}, ${s.entries} servers`) });
    } catch (err) {
      syncing.done(`failed: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
    syncing.done(`${sync.entries} servers on ${sync.pages} pages from ${deps.sync.url}: ${sync.firstSeen} new, ${sync.unlisted} gone, ${sync.skipped} unusable entries skipped`);
    const probing = progressLine('probe');
    const probes = await probeDue(deps.probes, {
      onProbe: (server, outcome, done, total) => probing.update(`${bar(total ? done / total : 1)} ${done}/${total} ${server.name}: ${outcome.kind}`),
    });
    probing.done(`${probes.probed} servers probed`);
    const counts = await store.registry.verdictCounts();
    process.stdout.write(
      `${Object.entries(counts)
        .map(([verdict, n]) => `${VERDICT_LABELS[verdict as keyof typeof VERDICT_LABELS]}: ${n}`)
        .join('\n')}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'help'] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Agent-side commands: they need no board configuration beyond an optional BASE_URL.
  if (command === 'keygen' || command === 'request') {
    return agentCommand(argv, process.env.BASE_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '8787'}`);
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'migrate':
      await migrate(config);
      return 0;
    case 'import':
      return importFile(config, argv[1]);
    case 'export':
      return exportFile(config, argv.slice(1));
    case 'backup':
      return backupCommand(config, argv[1]);
    case 'restore':
      return restoreCommand(config, argv[1]);
    case 'sync-registry':
      return syncRegistryCommand(config);
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`agentboard-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
