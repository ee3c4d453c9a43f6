import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { mayRunAgain, toDomainError } from './pg-errors.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('PostgreSQL errors in board terms', () => {
  it('a deadlock or serialization failure is run again, and once the attempts are spent it is a passing unavailability (503), not an internal error', () => {
    for (const code of ['40P01', '40001']) {
      expect(mayRunAgain(pgError(code), 1)).toBe(true);
      expect(mayRunAgain(pgError(code), 5)).toBe(false);
      const mapped = toDomainError(pgError(code));
      expect(mapped).toBeInstanceOf(DomainError);
      expect((mapped as DomainError).code).toBe('unavailable');
    }
  });

  it('leaves an error it does not know as it is', () => {
    const unique = pgError('23505');
    expect(mayRunAgain(unique, 1)).toBe(false);
    expect(toDomainError(unique)).toBe(unique);
  });
});
