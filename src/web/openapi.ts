/** Fragments of route descriptions every transport's routes share: JSON answers and their problem documents. */
import type { z } from 'zod';
import { PROBLEMS, PROBLEM_MEDIA_TYPE } from '../schemas/problems.js';
import { Problem } from '../schemas/resources.js';

export const jsonContent = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const htmlOrJson = (schema: z.ZodType, description: string) => ({
  description: `${description} (an HTML page when Accept lists text/html)`,
  content: { 'application/json': { schema }, 'text/html': { schema: { type: 'string' as const } } },
});

export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: Object.values(PROBLEMS)
          .filter((p) => p.status === status)
          .map((p) => p.title)
          .join(' / '),
        content: { [PROBLEM_MEDIA_TYPE]: { schema: Problem } },
      },
    ]),
  );
}
