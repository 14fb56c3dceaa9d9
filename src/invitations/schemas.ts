import { Type } from 'typebox';
import { invitationDefaults } from '../config/defaults.ts';

export const NewInvitation = Type.Object(
  {
    expires_in: Type.Optional(
      Type.Integer({
        minimum: invitationDefaults.minSeconds,
        maximum: invitationDefaults.maxSeconds,
        description: `Seconds the link works: from 5 minutes to 7 days; ${invitationDefaults.lifetimeSeconds / 3600} hours when absent`,
      }),
    ),
    send: Type.Optional(Type.Boolean({ description: "Also email the link to the person's email_address handle (through TESSERA_SMTP_URL)", default: false })),
  },
  { additionalProperties: false },
);

export const InvitationView = Type.Object({
  url: Type.String({
    description: 'The one-time console link where the person sets their password (and, when their roles need it, a second factor). Shown only now.',
  }),
  expires_at: Type.String({ format: 'date-time' }),
  reset: Type.Boolean({ description: 'The person held credentials: redeeming the link replaces them and ends their tokens and sessions' }),
  emailed_to: Type.Union([Type.String(), Type.Null()], { description: 'The address the link was sent to, or null' }),
});
