/**
 * Import: NDJSON, one object per line, every field of the Object shape accepted. `id` is
 * optional (made from `created_at` when absent); `created_at`, `expires_at`, the counts and
 * hidden/withdrawn states are kept as given — this is the migration and backup path. A bad
 * line stops the import with its line number and nothing is kept.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { BoardLimits } from '../../domain/limits.js';
import { spaceSlug } from '../../schemas/fields.js';
import type { RootType } from '../../domain/model.js';
import { derivedFields } from '../../domain/derived.js';
import { earnedTrust } from '../../domain/reputation.js';
import { ulidAt } from '../../domain/ulid.js';
import { BulkRowError, type BulkObject } from '../../ports/object-store.js';
import type { Store } from '../../ports/store.js';
import { httpUrl, text, ulid } from '../../schemas/fields.js';
import { toFieldIssues } from '../../schemas/parse.js';
import { SPEC_LIMITS } from '../../domain/limits.js';
import { Author, OBJECT_TYPES, STATES, topicsField } from '../../schemas/resources.js';

const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time');
const count = z.number().int('must be an integer').min(0, 'must not be negative');

/** One line. `url`, `reply_count` and `flags` (derived fields of an export) are accepted and ignored. */
export const ImportLine = z.object({
  id: ulid.optional(),
  type: z.enum(OBJECT_TYPES),
  title: text(0, SPEC_LIMITS.title).optional(),
  content: text(1, SPEC_LIMITS.content),
  topics: topicsField,
  source_url: httpUrl(SPEC_LIMITS.sourceUrl).nullable().optional(),
  parent_id: ulid.nullable().optional(),
  author: Author.nullable().optional(),
  created_at: instant.optional(),
  expires_at: instant.optional(),
  last_verified_at: instant.nullable().optional(),
  verification_count: count.optional(),
  contradiction_count: count.optional(),
  state: z.enum(STATES).optional(),
  supersedes: ulid.nullable().optional(),
  superseded_by: ulid.nullable().optional(),
  /** Written by a quarantined source; `hidden` then says whether a moderator hid it too. */
  quarantined: z.boolean().optional(),
  /** The space the object belongs to; absent for the commons. */
  space: spaceSlug.nullable().optional(),
  promoted_to: ulid.nullable().optional(),
  hidden: z.boolean().optional(),
});

export class ImportError extends Error {
  constructor(
    readonly line: number,
    detail: string,
  ) {
    super(`line ${line}: ${detail}`);
    this.name = 'ImportError';
  }
}

/** Validates one parsed line into a row, or throws ImportError naming the line and fields. */
export function toBulkObject(value: unknown, line: number, now: number, limits: BoardLimits): BulkObject {
  const r = ImportLine.safeParse(value);
  if (!r.success) throw new ImportError(line, toFieldIssues(r.error).map((i) => `${i.path} ${i.message}`).join('; '));
  const d = r.data;
  const parentId = d.parent_id ?? null;
  if (d.type === 'response' && parentId === null) throw new ImportError(line, 'parent_id is required for a response');
  if (d.type !== 'response' && parentId !== null) throw new ImportError(line, `parent_id is only for responses, not a ${d.type}`);
  if (d.type === 'artifact' && !d.source_url) throw new ImportError(line, 'source_url is required for artifacts');
  if (d.state === 'superseded' && !d.superseded_by) throw new ImportError(line, 'superseded_by is required for a superseded object');
  if (d.type === 'response' && (d.supersedes || d.superseded_by)) throw new ImportError(line, 'a response neither supersedes nor is superseded');
  const createdAt = d.created_at ? Date.parse(d.created_at) : now;
  const lifetimeType: RootType = d.type === 'response' ? 'finding' : d.type;
  const expiresAt = d.expires_at ? Date.parse(d.expires_at) : createdAt + limits.lifetimes[lifetimeType].defaultSeconds * 1000;
  const author = d.author ? { id: d.author.id, trustLevel: earnedTrust(d.author.trust_level, d.author.domain), domain: d.author.domain } : null;
  const written = { type: d.type, title: d.title, content: d.content, topics: d.topics, sourceUrl: d.source_url ?? null, parentId, author, space: d.space ?? null };
  return {
    ...written,
    ...derivedFields(written),
    id: d.id ?? ulidAt(createdAt),
    createdAt,
    expiresAt,
    lastVerifiedAt: d.last_verified_at ? Date.parse(d.last_verified_at) : null,
    verificationCount: d.verification_count ?? 0,
    contradictionCount: d.contradiction_count ?? 0,
    hidden: d.quarantined ? d.hidden === true : d.state === 'hidden',
    quarantined: d.quarantined === true,
    withdrawn: d.state === 'withdrawn',
    supersedes: d.supersedes ?? null,
    supersededBy: d.superseded_by ?? null,
    promotedTo: d.promoted_to ?? null,
  };
}

export interface ImportOptions {
  now: number;
  limits: BoardLimits;
  /** Called every few hundred lines with the lines read so far. */
  onProgress?: (lines: number) => void;
}

/**
 * Imports every line of `input`, all or nothing; returns the number of objects imported.
 * Lines are checked and written to a local spool first, so the store's one transaction never
 * waits on the input (a slow pipe or client); then the spool goes in, in batches.
 */
export async function importNdjson(store: Store, input: Readable, o: ImportOptions): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'agentboard-import-'));
  const spool = join(dir, 'rows.ndjson');
  try {
    const lines = await checkToSpool(input, spool, o);
    const lineOf = new Map<BulkObject, number>();
    async function* batches(): AsyncGenerator<BulkObject[]> {
      const rows = createInterface({ input: createReadStream(spool), crlfDelay: Infinity });
      let batch: BulkObject[] = [];
      for await (const raw of rows) {
        const { line, row } = JSON.parse(raw) as { line: number; row: BulkObject };
        lineOf.set(row, line);
        batch.push(row);
        if (batch.length === IMPORT_BATCH) {
          yield batch;
          lineOf.clear();
          batch = [];
        }
      }
      if (batch.length) yield batch;
    }
    try {
      return await store.objects.bulkImport(batches(), { now: o.now, disputeMinContradictions: o.limits.disputeMinContradictions });
    } catch (e) {
      if (e instanceof BulkRowError) throw new ImportError(lineOf.get(e.row) ?? lines, e.message);
      throw e;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const IMPORT_BATCH = 500;

/** Validates each line into a row, spooled with its line number; answers the number of lines read. */
async function checkToSpool(input: Readable, spool: string, o: ImportOptions): Promise<number> {
  const out = createWriteStream(spool);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let rows = 0;
  try {
    for await (const raw of lines) {
      lineNo++;
      if (raw.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (e) {
        throw new ImportError(lineNo, `not valid JSON (${(e as Error).message})`);
      }
      const row = toBulkObject(value, lineNo, o.now, o.limits);
      if (!out.write(`${JSON.stringify({ line: lineNo, row })}\n`)) await once(out, 'drain');
      if (++rows % 500 === 0) o.onProgress?.(lineNo);
    }
  } finally {
    lines.close();
    out.end();
    await once(out, 'close');
  }
  o.onProgress?.(lineNo);
  return lineNo;
}
