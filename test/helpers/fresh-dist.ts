/**
 * Vitest global setup: rebuilds dist/ when a source file is newer than it. Some tests run the
 * built board as a user would (`node dist/cli/main.js`, as compose.yaml and `npm start` do);
 * against a stale build they would test old code without saying so.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

function newestIn(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestIn(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = (() => {
    try {
      return statSync(join(ROOT, 'dist', 'cli', 'main.js')).mtimeMs;
    } catch {
      return 0;
    }
  })();
  if (built >= newestIn(join(ROOT, 'src'))) return;
  console.log('dist/ is older than src/: rebuilding it (npm run build)');
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
}
