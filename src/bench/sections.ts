/** BENCHMARKS.md holds one section per bench script (or per store), each replaced by its own next run. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PACKAGE_ROOT } from '../paths.js';

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

/** The commit measured, and whether the checkout differed from it. */
export function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim();
    // BENCHMARKS.md itself aside: a run before this one leaves it changed, and that is no change to what is measured.
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!BENCHMARKS.md'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
