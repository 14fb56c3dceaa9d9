import type { Person } from '../../store/types.ts';
import type { OwnToken } from './reader.ts';

/** Why a person's token of an earlier generation is refused, completing "The subject_token …". */
export const EARLIER_GENERATION = 'was issued before the person signed out everywhere, had their roles changed or a credential removed; it no longer works';

/**
 * Design §5: a JWT whose subject is a person works only while the person's generation is the
 * one it carries (`gen`, 0 when absent, as in every JWT issued before release 11). Opaque tokens
 * carry none: raising a generation revokes them in the same transaction instead.
 */
export function isOfCurrentGeneration(token: Pick<OwnToken, 'format' | 'personGeneration'>, person: Pick<Person, 'generation'>): boolean {
  return token.format === 'opaque' || token.personGeneration >= person.generation;
}
