/** pino logger factory: JSON lines; secrets never logged. */
import pino, { type Logger } from 'pino';

/** The message of the one line each request logs (app.ts). */
export const REQUEST_MESSAGE = 'request';
const REQUEST_TAIL = `"msg":"${REQUEST_MESSAGE}"}\n`;
/** Larger batches cost a cached GET less CPU (docs/performance.md). */
const BATCH_BYTES = 64 * 1024;

/**
 * Standard output for `serve`, written synchronously: request lines (ending in their msg) wait
 * in memory and go out together, at BATCH_BYTES or after `flushMs`; any other line goes out at
 * once, after those before it. With `flushMs` 0, every line goes out at once. pino's own
 * stdout wrote each line on the thread pool, costing each request more CPU. What waits is
 * written at exit; a kill -9 loses at most `flushMs` of request lines.
 */
export function batchedStdout(flushMs: number): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  if (flushMs === 0) return out;
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    out.write(lines);
  };
  setInterval(flush, flushMs).unref();
  process.on('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (!line.endsWith(REQUEST_TAIL) || pending.length >= BATCH_BYTES) flush();
    },
  };
}

/** The fields of the one line each request logs. */
export interface RequestFields {
  request_id: string;
  client: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
}

/**
 * Writes the request line as pino would (`log.info(fields, REQUEST_MESSAGE)`: level, time,
 * the logger's bindings, the fields, msg last), straight to the logger's destination. pino's
 * generic path (serializers, redaction, a check per key) did work a line of fixed fields does
 * not need: a cached GET took about 202,000 instructions instead of 212,000 (callgrind).
 * Bodies and secrets are never in it.
 */
export function requestLogger(log: Logger): (fields: () => RequestFields) => void {
  const internals = log as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as pino.DestinationStream;
  const head = `{"level":${log.levels.values.info},"time":`;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  const tail = `,${REQUEST_TAIL}`;
  // Built only when it is written.
  return (fields) => {
    if (!log.isLevelEnabled('info')) return;
    const f = fields();
    stream.write(
      `${head}${Date.now()}${bindings},"request_id":${JSON.stringify(f.request_id)},"client":${JSON.stringify(f.client)},"method":${JSON.stringify(f.method)},"path":${JSON.stringify(f.path)},"status":${f.status},"duration_ms":${f.duration_ms}${tail}`,
    );
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'agentboard' },
      redact: { paths: ['*.authorization', '*.adminToken', '*.metricsToken', '*.apiKey', 'config.adminToken', 'config.metricsToken', 'config.voterHashSecret'], censor: '[redacted]' },
    },
    destination,
  );
}
