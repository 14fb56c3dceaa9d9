import { type Static, Type } from 'typebox';
import { HandleBody, PersonLoginView, SecondFactorRequiredView } from '../../authn/login-schemas.ts';

/** Generous for passphrases; the bound keeps one request from feeding megabytes to a hash. */
export const MAX_PASSWORD_LENGTH = 1024;

export const PasswordLoginBody = Type.Object(
  { handle: HandleBody, password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }) },
  { additionalProperties: false },
);

/**
 * POST /authn/password's answer (design §5): the person JWT, or, for a person who holds a second
 * factor, the ticket that factor completes. A breaking change of release 11: clients branch on
 * `second_factor_required`.
 */
export const PasswordLoginView = Type.Unsafe<Static<typeof PersonLoginView> | Static<typeof SecondFactorRequiredView>>({
  oneOf: [PersonLoginView, SecondFactorRequiredView],
});
