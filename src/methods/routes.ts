import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { LoginServices } from './login-services.ts';
import { passwordLoginRoutes } from './password/login-routes.ts';
import { enrolmentRoutes } from './totp/enrolment-routes.ts';
import { totpLoginRoutes } from './totp/login-routes.ts';

/** The authentication challenges (POST /authn/…): one plugin, so app.ts registers it in one line. */
export function authnRoutes(services: LoginServices, reader: TokenReader): FastifyPluginAsyncTypebox {
  const { store, context, now } = services;
  return async (app) => {
    await app.register(enrolmentRoutes(store, reader, { store, context, now }));
    await app.register(passwordLoginRoutes(services));
    await app.register(totpLoginRoutes(services));
  };
}
