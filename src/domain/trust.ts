/**
 * The trust filter (`min_trust`): an object passes when its author's shown trust is at least the
 * level asked for, in the order signed < domain-verified < reputable. Anonymous objects pass no
 * level. The stores keep the same rule as SQL (store/sql-fragments.ts, trustSql).
 */
import type { AuthorRef, TrustLevel } from './model.js';

export const TRUST_ORDER: readonly TrustLevel[] = ['signed', 'domain-verified', 'reputable'];

export function trustAtLeast(author: Pick<AuthorRef, 'trustLevel'> | null, min: TrustLevel | undefined): boolean {
  if (min === undefined) return true;
  return author !== null && TRUST_ORDER.indexOf(author.trustLevel) >= TRUST_ORDER.indexOf(min);
}
