/** Schema checks that say why they fail: the zod issues, not `expected false to be true`. */
import { z } from 'zod';

export function expectValid<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const id = (schema.meta() as { id?: string } | undefined)?.id ?? 'the schema';
    throw new Error(`does not match ${id}:\n${z.prettifyError(r.error)}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
  }
  return r.data;
}
