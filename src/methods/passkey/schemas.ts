import { Type } from 'typebox';
import { HandleBody, SecondFactorTicketField } from '../../authn/login-schemas.ts';

const ChallengeId = Type.String({ minLength: 1, maxLength: 64, description: 'From the options call' });

/** The browser's answer, as @simplewebauthn/browser returns it; its contents are the verifier's to judge. */
const BrowserResponse = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 1400 }), type: Type.Literal('public-key') },
  { additionalProperties: true, description: 'The PublicKeyCredential JSON of navigator.credentials.get() or create() (toJSON())' },
);

/**
 * With a handle, a login of the person it names; with a second-factor ticket, the second step of
 * that password login; with neither (or with no body), a discoverable login.
 */
export const LoginOptionsRequest = Type.Object(
  { handle: Type.Optional(HandleBody), second_factor_ticket: Type.Optional(SecondFactorTicketField) },
  { additionalProperties: false },
);

export const LoginVerifyRequest = Type.Object(
  { challenge_id: ChallengeId, response: BrowserResponse, second_factor_ticket: Type.Optional(SecondFactorTicketField) },
  { additionalProperties: false },
);

export const RegistrationOptionsRequest = Type.Object(
  { person_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'With an admin key: the person; with a person JWT: omitted' })) },
  { additionalProperties: false },
);

export const RegistrationVerifyRequest = Type.Object(
  {
    challenge_id: ChallengeId,
    response: BrowserResponse,
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A name for the credential, shown back' })),
  },
  { additionalProperties: false },
);

/** The options for the browser, as @simplewebauthn/server makes them; passed through whole. */
const BrowserOptions = Type.Object({ challenge: Type.String() }, { additionalProperties: true });

export const Ceremony = Type.Object({ challenge_id: Type.String(), options: BrowserOptions });
