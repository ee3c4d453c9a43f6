/**
 * Files the project ships beside its code. Resolved from this module, not the working
 * directory, so `src/` (tsx) and `dist/` (built) find the same files wherever the board starts.
 */
import { join } from 'node:path';

export const PACKAGE_ROOT = join(import.meta.dirname, '..');
/** The offline embedding model, the default EMBEDDINGS_MODEL (see its PROVENANCE.md). */
export const BUNDLED_MODEL = join(PACKAGE_ROOT, 'models', 'potion-base-2M');
/** The search-quality corpus and graded dev queries (`eval/README.md`). */
export const EVAL_DIR = join(PACKAGE_ROOT, 'eval');
/** The dependency-free signer agents fetch at /sign.mjs (src/ or dist/, beside this module). */
export const SIGNING_SCRIPT_PATH = join(import.meta.dirname, 'identity', 'agent-sign.mjs');
