import { Type } from 'typebox';
import { ApiError } from '../../errors/api-error.ts';
import { PasswordLoginBody } from '../../methods/password/login-schemas.ts';
import { TotpLoginBody } from '../../methods/totp/login-schemas.ts';
import { checkBody, FormRefusal } from '../form-refusals.ts';

const fieldsOf = {
  password: Type.Object({ password: PasswordLoginBody.properties.password }),
  code: Type.Object({ code: TotpLoginBody.properties.code }),
};

/**
 * A secret typed into a console form, held to the API's own rules for it (its length bound, no
 * U+0000) before it reaches a hash or a ticket: what the API refuses with a 400 must not count as
 * a wrong guess here, nor use up one of a ticket's attempts.
 */
export function checkSecret(name: keyof typeof fieldsOf, value: string): void {
  try {
    checkBody(fieldsOf[name], { [name]: value });
  } catch (error) {
    if (error instanceof FormRefusal) throw new ApiError('INVALID_FIELD', error.messages[0]!);
    throw error;
  }
}
