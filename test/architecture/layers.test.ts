/**
 * The import rules of .dependency-cruiser.cjs bite: each forbidden direction, written into a
 * scratch tree laid out like src/, fails `depcruise` under the project's own configuration,
 * and the same tree without it passes. (npm test also runs the rules over the real src/.)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const CRUISER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const scratch: string[] = [];
afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A tree whose every file is an empty module, plus `from` importing `to`. */
function tree(files: string[], from?: string, to?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  scratch.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }));
  for (const f of new Set([...files, ...(from ? [from] : []), ...(to ? [to] : [])])) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    const relative = from === f && to ? join(...dirname(f).split('/').map(() => '..'), to).replace(/\.ts$/, '.js') : null;
    writeFileSync(join(dir, f), relative ? `import { x } from '${relative}';\nexport const y = x;\n` : 'export const x = 1;\n');
  }
  return dir;
}

async function cruise(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    const r = await run(process.execPath, [CRUISER, 'src', '--config', CONFIG], { cwd: dir });
    return { ok: true, output: r.stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const FILES = ['src/metrics.ts', 'src/http/api.ts', 'src/html/routes.ts', 'src/mcp/routes.ts', 'src/events/routes.ts', 'src/service/board.ts', 'src/web/router.ts', 'src/store/sqlite/store.ts', 'src/config.ts', 'src/compose.ts', 'src/domain/model.ts'];

describe('the layering rules', () => {
  it.each([
    ['src/mcp/routes.ts', 'src/http/api.ts', 'transport-mcp-imports-no-other-transport'],
    ['src/http/api.ts', 'src/html/routes.ts', 'transport-http-imports-no-other-transport'],
    ['src/html/routes.ts', 'src/events/routes.ts', 'transport-html-imports-no-other-transport'],
    ['src/service/board.ts', 'src/http/api.ts', 'service-imports-no-transport'],
    ['src/service/board.ts', 'src/web/router.ts', 'service-imports-no-transport'],
    ['src/web/router.ts', 'src/mcp/routes.ts', 'web-is-shared-by-the-transports'],
    ['src/config.ts', 'src/store/sqlite/store.ts', 'config-names-no-adapter'],
    ['src/http/api.ts', 'src/store/sqlite/store.ts', 'transports-call-the-service-only'],
    ['src/service/board.ts', 'src/store/sqlite/store.ts', 'only-the-composition-root-wires-adapters'],
    ['src/domain/model.ts', 'src/service/board.ts', 'domain-is-pure'],
    ['src/metrics.ts', 'src/service/board.ts', 'support-modules-stay-plain'],
  ])('%s importing %s fails with %s', async (from, to, rule) => {
    const r = await cruise(tree(FILES, from, to));
    expect(r.ok).toBe(false);
    expect(r.output).toContain(rule);
  });

  it('passes the permitted directions: composition root → adapter, transport → service and web', async () => {
    for (const [from, to] of [
      ['src/compose.ts', 'src/store/sqlite/store.ts'],
      ['src/http/api.ts', 'src/service/board.ts'],
      ['src/mcp/routes.ts', 'src/web/router.ts'],
    ] as const) {
      const r = await cruise(tree(FILES, from, to));
      expect(r, `${from} → ${to}`).toMatchObject({ ok: true });
    }
  });
});
