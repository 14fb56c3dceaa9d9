import type { Person } from '../../store/types.ts';
import type { OwnToken } from './reader.ts';

/** Why a person's token of an earlier generation is refused, completing "The subject_token …". */
export const EARLIER_GENERATION = 'was issued before the person signed out everywhere, had their roles changed or a credential removed; it no longer works';

/**
 * Design §5: a token whose subject is a person works only while the person's generation is the
 * one it was issued at (a JWT's `gen`, an opaque token's record; 0 when absent, as in every token
 * issued before release 11). A raise also revokes the person's opaque tokens, but one issued
 * while the raise commits escapes that: this check is what refuses it.
 */
export function isOfCurrentGeneration(token: Pick<OwnToken, 'personGeneration'>, person: Pick<Person, 'generation'>): boolean {
  return token.personGeneration >= person.generation;
}
