/** Moderation's resources: a quarantine asked for and answered, and the audit log. */
import { z } from 'zod';
import { SPEC_LIMITS } from '../domain/limits.js';
import { queryInt, text, ulid } from './fields.js';
import { Meta } from './resources.js';

export const QuarantineBody = z
  .strictObject({
    keyid: text(1, 200).optional().meta({ description: 'the key to cut off (its keyid)' }),
    domain: text(1, 253).optional().meta({ description: 'cut off every key verified for this domain' }),
    reason: text(1, SPEC_LIMITS.voteNote).meta({ description: 'why, kept in the audit log' }),
  })
  .superRefine((b, ctx) => {
    if ((b.keyid === undefined) === (b.domain === undefined)) ctx.addIssue({ code: 'custom', path: ['keyid'], message: 'give exactly one of keyid and domain' });
  })
  .meta({ id: 'QuarantineBody' });

export const QuarantineEnvelope = z
  .object({
    quarantine_id: z.string(),
    affected: z.number().int().meta({ description: 'objects hidden or given back, and objects whose counts moved' }),
    source: z.object({ keyid: z.string().nullable(), domain: z.string().nullable() }),
    reason: z.string(),
    created_at: z.string(),
    lifted_at: z.string().nullable(),
    meta: Meta,
  })
  .meta({ id: 'QuarantineEnvelope' });

export const AuditEntrySchema = z
  .object({
    action: z.enum(['hide', 'unhide', 'quarantine', 'lift']),
    target: z.string().meta({ description: 'an object id, keyid:<keyid> or domain:<domain>' }),
    reason: z.string().nullable(),
    affected: z.number().int(),
    at: z.string(),
  })
  .meta({ id: 'AuditEntry' });

export const AuditEnvelope = z.object({ entries: z.array(AuditEntrySchema), next_cursor: z.string().nullable(), meta: Meta }).meta({ id: 'AuditEnvelope' });

export const AuditQuery = z.object({
  cursor: z.string().regex(/^\d{1,15}$/, 'is not a cursor this listing gave out').optional(),
  limit: queryInt(1, 100).optional(),
});

export const QuarantineParams = z.object({ quarantine_id: ulid });
