/**
 * `serve`'s standard output, in a child process of its own (it writes to fd 1): request lines
 * wait and go out together, in order with the others, and none is lost at exit.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, REQUEST_MESSAGE, requestLogger, type RequestFields } from './log.js';

const LOG = fileURLToPath(new URL('./log.ts', import.meta.url));

/**
 * Runs `body` in a child with `log` (batched, `flushMs`) in scope; answers what its stdout got,
 * in order: each log line's path (or message), and `#name` for each `mark(name)`, written to
 * the same descriptor at once, so it shows which lines had been written by then.
 */
function child(flushMs: number, body: string): Promise<string[]> {
  const script = `
    import { writeSync } from 'node:fs';
    import { batchedStdout, createLogger, REQUEST_MESSAGE } from ${JSON.stringify(LOG)};
    const log = createLogger('info', batchedStdout(${flushMs}));
    const request = (path) => log.info({ path }, REQUEST_MESSAGE);
    const mark = (name) => writeSync(1, '#' + name + '\\n');
    ${body}`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d));
    p.on('error', reject);
    const shown = (line: string) => {
      if (line.startsWith('#')) return line;
      const j = JSON.parse(line) as { path?: string; msg: string };
      return j.path ?? j.msg;
    };
    p.on('close', () => resolve(out.split('\n').filter(Boolean).map(shown)));
  });
}

describe('batchedStdout', () => {
  it('holds request lines until another line, the interval or exit, and keeps every line in order', async () => {
    const lines = await child(
      60_000,
      `request('/a'); request('/b');
       await new Promise((r) => setTimeout(r, 200));
       mark('waited');
       log.warn('something');
       request('/c');
       mark('exiting');`,
    );
    // Nothing was written while the request lines waited (the interval is a minute); the warning
    // took them with it, in order; the last request line waited for exit.
    expect(lines).toEqual(['#waited', '/a', '/b', 'something', '#exiting', '/c']);
  });

  it('writes waiting request lines after the interval, and at once past 64 KB', async () => {
    expect(await child(50, `request('/a'); await new Promise((r) => setTimeout(r, 300)); mark('later');`)).toEqual(['/a', '#later']);
    const full = await child(60_000, `for (let i = 0; i < 1000; i++) request('/' + i + 'x'.repeat(60)); mark('sent');`);
    // Some lines went out before the script went on, the rest at exit; all of them, in order.
    expect(full.indexOf('#sent')).toBeGreaterThan(0);
    expect(full.filter((l) => l !== '#sent')).toEqual(Array.from({ length: 1000 }, (_, i) => `/${i}${'x'.repeat(60)}`));
  });

  it('is not used with 0: each line is written as it is logged', async () => {
    expect(await child(0, `request('/a'); mark('one'); request('/b'); mark('two');`)).toEqual(['/a', '#one', '/b', '#two']);
  });
});

describe('requestLogger', () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, destination: { write: (line: string) => void lines.push(line) } };
  };
  const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

  it("writes the line pino writes for the same fields, whatever the path holds", () => {
    const { lines, destination } = capture();
    const log = createLogger('info', destination);
    const paths = ['/p/01J00000000000000000000000', '/search?q="quoted"\\back', '/ünïcode/😀', '/control\u0001\u001f\n\t', '/lone\ud800surrogate'];
    for (const path of paths) {
      const fields: RequestFields = { request_id: 'req-1.a_b', client: '::ffff:127.0.0.1', method: 'GET', path, status: 404, duration_ms: 0.3 };
      requestLogger(log)(() => fields);
      log.info(fields, REQUEST_MESSAGE);
    }
    expect(lines).toHaveLength(paths.length * 2);
    for (let i = 0; i < lines.length; i += 2) {
      expect(withoutTime(lines[i]!)).toBe(withoutTime(lines[i + 1]!));
      expect(JSON.parse(lines[i]!)).toMatchObject({ level: 30, service: 'agentboard', path: paths[i / 2], status: 404, msg: REQUEST_MESSAGE });
      expect(Math.abs((JSON.parse(lines[i]!) as { time: number }).time - Date.now())).toBeLessThan(60_000);
    }
  });

  it('writes nothing, and builds nothing, when info is off', () => {
    const { lines, destination } = capture();
    let built = 0;
    requestLogger(createLogger('warn', destination))(() => {
      built++;
      return { request_id: 'r', client: 'c', method: 'GET', path: '/', status: 200, duration_ms: 1 };
    });
    expect(lines).toEqual([]);
    expect(built).toBe(0);
  });
});
