/**
 * The documents stay true to the code: every section the code cites exists, every file the
 * architecture names exists, no comment cites a document outside the repository, and the
 * README stays a guide of bounded length.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const sources = execFileSync('git', ['ls-files', 'src', 'test', 'scripts'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|tsx|mjs|cjs)$/.test(f) && existsSync(join(ROOT, f)) && !f.endsWith('docs.test.ts'));

describe('docs/', () => {
  it('has a section for every docs/decisions.md section the code cites', () => {
    const headings = new Set([...read('docs/decisions.md').matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim()));
    const cited = new Set(sources.flatMap((f) => [...read(f).matchAll(/docs\/decisions\.md, ([A-Z][a-z]+(?: (?:and|of|[a-z]+))*?)(?=[):.;,]|$)/gm)].map((m) => m[1]!)));
    expect(cited.size).toBeGreaterThan(5);
    for (const section of cited) expect(headings, `docs/decisions.md, ${section}`).toContain(section);
  });

  it('names in architecture.md only files that exist', () => {
    const names = [...read('docs/architecture.md').matchAll(/`([\w./-]+\.(?:ts|tsx|cjs))`/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(30);
    const all = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
    const missing = names.filter((n) => !all.some((f) => f === n || f === `src/${n}` || f.endsWith(`/${n}`)));
    expect(missing).toEqual([]);
  });

  it('no source cites a document outside the repository', () => {
    const outside = sources.filter((f) => /spec §|(?<!docs\/)decisions\.md|interface\.md|shared\/(spec|design)/.test(read(f)));
    expect(outside).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = read('README.md');
  it('is a guide of at most 300 lines, no prose line over 600 characters, starting with the two commands', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
    expect(lines.filter((l) => !l.startsWith('|') && l.length > 600)).toEqual([]);
    const firstBlock = readme.slice(readme.indexOf('```sh'), readme.indexOf('```', readme.indexOf('```sh') + 5));
    expect(firstBlock).toContain('npm install && npm start');
    expect(firstBlock).toContain('npm install && npm test');
  });

  it('links only to files that exist', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)]+)\)/g)].map((m) => m[1]!.split('#')[0]!);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((l) => !existsSync(join(ROOT, l)))).toEqual([]);
  });
});
