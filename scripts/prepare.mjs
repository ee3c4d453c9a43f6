// npm's `prepare` hook. A development install (`npm install`, `npm ci`) builds dist/, so
// `npm start` works right after it. A production install (`npm ci --omit=dev`) has no compiler
// and is given a built dist/ (see the Dockerfile): there is nothing to do.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript/package.json');
} catch {
  process.exit(0);
}
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
