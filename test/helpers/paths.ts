import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
/** The offline embedding model shipped beside the repository (see its PROVENANCE.md). */
export const POTION = join(ROOT, '..', 'shared', 'models', 'potion-base-2M');
