import { Type } from 'typebox';
import { HandleBody, SecondFactorTicketField } from '../../authn/login-schemas.ts';
import { MAX_RECOVERY_CODE_LENGTH } from './limits.ts';

export const TotpLoginBody = Type.Object(
  {
    handle: Type.Optional({ ...HandleBody, description: 'Who logs in with the code alone (amr otp); or send second_factor_ticket' }),
    second_factor_ticket: Type.Optional(SecondFactorTicketField),
    code: Type.String({ minLength: 1, maxLength: MAX_RECOVERY_CODE_LENGTH, description: 'The current TOTP code, or an unused recovery code' }),
  },
  { additionalProperties: false },
);
