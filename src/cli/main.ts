#!/usr/bin/env node
/**
 * The `agentboard` command.
 *   agentboard serve     migrate, then serve the board (what `npm start` runs)
 *   agentboard migrate   apply database migrations and exit
 */
import { buildBoard, openStore } from '../compose.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createLogger } from '../log.js';
import { listen } from '../server.js';

const USAGE = `usage: agentboard <command>

commands:
  serve      apply migrations, then serve the board (PORT, HOST, DATABASE_URL, … from the environment)
  migrate    apply database migrations and exit
  help       show this text

Configuration comes from environment variables; see the README.`;

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const board = await buildBoard(config, log);
  const running = await listen(board, config, log);
  await board.startBackground();
  log.info({ url: running.url, database: config.database.kind }, 'agentboard listening');
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
  const store = openStore(config);
  try {
    await store.migrate();
    process.stdout.write(`migrations applied (${config.database.kind})\n`);
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
    process.stderr.write(`agentboard: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
