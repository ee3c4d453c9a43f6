// `npm run build`: a clean dist/ from tsc, then files served as they are written. tsc re-emits
// src/identity/agent-sign.mjs reformatted; agents fetch that file at /sign.mjs, so dist/ gets
// the very bytes that are reviewed and tested.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

rmSync('dist', { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
copyFileSync('src/identity/agent-sign.mjs', 'dist/identity/agent-sign.mjs');
