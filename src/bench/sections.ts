/** BENCHMARKS.md holds one section per bench script, each replaced by its own next run. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function writeSection(file: string, name: string, body: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const at = text.indexOf(start);
  const stop = text.indexOf(end);
  text = at >= 0 && stop > at ? text.slice(0, at) + block + text.slice(stop + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}
