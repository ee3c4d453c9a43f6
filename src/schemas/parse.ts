/** Runs a zod schema and turns its issues into the interface's `errors[]` (path + message). */
import type { z } from 'zod';
import { invalid, type FieldIssue } from '../domain/errors.js';

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return 'is required';
  if (issue.code === 'invalid_type') return issue.expected === 'int' ? 'must be an integer' : `must be of type ${issue.expected}`;
  return issue.message.replace(/^Invalid input: /, '');
}

export function toFieldIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('/');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: base ? `${base}/${key}` : key, message: 'is not a known field' });
    } else {
      out.push({ path: base || (prefix ? prefix : '(body)'), message: issueMessage(issue) });
    }
  }
  return out;
}

/** Parses `value` or throws a validation DomainError naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw invalid(toFieldIssues(r.error, prefix));
  return r.data;
}
